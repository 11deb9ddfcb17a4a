#include "core/LayerNameDelegate.h"

#include <QApplication>
#include <QStyle>

namespace npuwb::ui {

QString elideLayerName(const QString& name, const QFontMetrics& metrics, int width) {
    if (metrics.horizontalAdvance(name) <= width) return name;
    const QString ellipsis = QStringLiteral("…");
    // Drop leading scopes while more than the last one is left: "…/features.3/conv/conv.2/Conv".
    for (qsizetype slash = name.indexOf(QLatin1Char('/'), 1); slash > 0;
         slash = name.indexOf(QLatin1Char('/'), slash + 1)) {
        if (name.indexOf(QLatin1Char('/'), slash + 1) < 0) break;  // keep at least the last two parts whole
        const QString shorter = ellipsis + name.mid(slash);
        if (metrics.horizontalAdvance(shorter) <= width) return shorter;
    }
    return metrics.elidedText(name, Qt::ElideLeft, width);
}

void LayerNameDelegate::paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const {
    QStyleOptionViewItem opt(option);
    initStyleOption(&opt, index);
    QStyle* style = opt.widget ? opt.widget->style() : QApplication::style();
    const QRect text = style->subElementRect(QStyle::SE_ItemViewItemText, &opt, opt.widget);
    // The style's own margin inside the text rectangle (QCommonStyle: pixel metric FocusFrameHMargin + 1 per side).
    const int margin = 2 * (style->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, opt.widget) + 1);
    opt.text = elideLayerName(opt.text, opt.fontMetrics, text.width() - margin);
    style->drawControl(QStyle::CE_ItemViewItem, &opt, painter, opt.widget);
}

}  // namespace npuwb::ui
