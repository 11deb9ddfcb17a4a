#include "core/ViewRegistry.h"

#include <QCoreApplication>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace npuwb::ui {

QString ViewInfo::translatedTitle() const {
    return QCoreApplication::translate("views", title);
}

ViewRegistry& ViewRegistry::instance() {
    static ViewRegistry registry;
    return registry;
}

bool ViewRegistry::add(ViewInfo info) {
    for (const ViewInfo& view : views_)
        if (std::strcmp(view.name, info.name) == 0) {
            // Static initialization: no Qt message handler to rely on yet.
            std::fprintf(stderr, "npuwb: two GUI views are registered as '%s'\n", info.name);
            std::abort();
        }
    const auto at = std::upper_bound(views_.begin(), views_.end(), info.order,
                                     [](int order, const ViewInfo& view) { return order < view.order; });
    views_.insert(at, std::move(info));
    return true;
}

const ViewInfo* ViewRegistry::find(const QString& name) const {
    for (const ViewInfo& view : views_)
        if (name.compare(QLatin1String(view.name), Qt::CaseInsensitive) == 0) return &view;
    return nullptr;
}

QStringList ViewRegistry::names() const {
    QStringList names;
    for (const ViewInfo& view : views_) names << QString::fromLatin1(view.name);
    return names;
}

}  // namespace npuwb::ui
