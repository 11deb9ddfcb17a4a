#include "models/LayerFilter.h"

namespace npuwb::ui {

bool LayerFilter::isActive() const {
    return !opTypes_.isEmpty() || !target_.isEmpty() || !name_.isEmpty() || minTimeUs_ || maxTimeUs_;
}

bool LayerFilter::matches(const QString& opType, const QString& target, const QString& name, double timeUs) const {
    if (!opTypes_.isEmpty() && !opTypes_.contains(opType))
        return false;
    if (!target_.isEmpty() && target.compare(target_, Qt::CaseInsensitive) != 0)
        return false;
    if (!name_.isEmpty() && !name.contains(name_, Qt::CaseInsensitive))
        return false;
    if ((minTimeUs_ || maxTimeUs_) && timeUs < 0)
        return false;
    if (minTimeUs_ && timeUs < *minTimeUs_)
        return false;
    if (maxTimeUs_ && timeUs > *maxTimeUs_)
        return false;
    return true;
}

void LayerFilter::setOpTypes(const QSet<QString>& opTypes) {
    if (opTypes == opTypes_)
        return;
    opTypes_ = opTypes;
    emit changed();
}

void LayerFilter::setTarget(const QString& target) {
    if (target == target_)
        return;
    target_ = target;
    emit changed();
}

void LayerFilter::setName(const QString& name) {
    if (name == name_)
        return;
    name_ = name;
    emit changed();
}

void LayerFilter::setTimeRange(std::optional<double> minUs, std::optional<double> maxUs) {
    if (minUs == minTimeUs_ && maxUs == maxTimeUs_)
        return;
    minTimeUs_ = minUs;
    maxTimeUs_ = maxUs;
    emit changed();
}

void LayerFilter::clear() {
    if (!isActive())
        return;
    opTypes_.clear();
    target_.clear();
    name_.clear();
    minTimeUs_.reset();
    maxTimeUs_.reset();
    emit changed();
}

}  // namespace npuwb::ui
