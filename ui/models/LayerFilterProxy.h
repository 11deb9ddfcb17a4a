#pragma once
// A sort/filter proxy that also hides the rows the shared LayerFilter rejects. The view that owns it says how a
// source row reads as a layer (rowLayer), since each table keeps op type, target, name and time in its own columns.
#include <QSortFilterProxyModel>

#include <functional>

namespace npuwb::ui {

class LayerFilter;

class LayerFilterProxy : public QSortFilterProxyModel {
    Q_OBJECT
public:
    struct RowLayer {
        QString opType, target, name;
        double timeUs = -1;  // < 0: no time
        bool foldedIntoAnother = false;  // a fused kernel's node whose row is the kernel's first node's: hidden
    };
    using RowReader = std::function<RowLayer(int sourceRow)>;

    using QSortFilterProxyModel::QSortFilterProxyModel;

    /// Follows `filter` (changed() re-filters) from now on; `readRow` reads a source row.
    void setLayerFilter(const LayerFilter* filter, RowReader readRow);

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;

private:
    const LayerFilter* filter_ = nullptr;
    RowReader readRow_;
};

}  // namespace npuwb::ui
