#pragma once
// The layer the user is looking at, shared by every view: picking a row in the table highlights its bar in
// the chart and vice versa, without the views knowing each other.
#include <QObject>

namespace npuwb::ui {

class LayerSelection : public QObject {
    Q_OBJECT
public:
    using QObject::QObject;
    /// LayerRow::id of the selected layer, -1 when none.
    int selectedLayer() const { return selected_; }

public slots:
    /// Emits only on change, so views that echo the selection back do not loop.
    void selectLayer(int id);
    void clear() { selectLayer(-1); }

signals:
    void layerSelected(int id);

private:
    int selected_ = -1;
};

}  // namespace npuwb::ui
