#include "models/LayerFilterProxy.h"

#include "models/LayerFilter.h"

namespace npuwb::ui {

void LayerFilterProxy::setLayerFilter(const LayerFilter* filter, RowReader readRow) {
    filter_ = filter;
    readRow_ = std::move(readRow);
    connect(filter, &LayerFilter::changed, this, &LayerFilterProxy::invalidateRowsFilter);
    invalidateRowsFilter();
}

bool LayerFilterProxy::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const {
    if (readRow_ && !sourceParent.isValid()) {
        const RowLayer row = readRow_(sourceRow);
        if (row.foldedIntoAnother) return false;
        if (filter_ && filter_->isActive() && !filter_->matches(row.opType, row.target, row.name, row.timeUs))
            return false;
    }
    return QSortFilterProxyModel::filterAcceptsRow(sourceRow, sourceParent);
}

}  // namespace npuwb::ui
