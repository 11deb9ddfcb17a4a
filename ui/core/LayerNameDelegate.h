#pragma once
// Draws layer names so that what tells rows apart stays visible: exported names share their leading scopes
// ("/features/features.3/conv/conv.2/Conv", "StatefulPartitionedCall/model/conv2d_3/Conv2D") and differ near the
// end, so a name too long for its column drops whole leading scopes first ("…/features.3/conv/conv.2/Conv"), then
// characters from the left. Qt's middle elision cut the distinctive scope out of every row.
#include <QFontMetrics>
#include <QStyledItemDelegate>

namespace npuwb::ui {

/// `name` fitted into `width` pixels: itself when it fits, else leading "/"-scopes replaced by "…", else elided left.
QString elideLayerName(const QString& name, const QFontMetrics& metrics, int width);

class LayerNameDelegate : public QStyledItemDelegate {
    Q_OBJECT
public:
    using QStyledItemDelegate::QStyledItemDelegate;
    void paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const override;
};

}  // namespace npuwb::ui
