#pragma once
// The Graph view's zoomable canvas and its minimap. The canvas zooms with the wheel (around the cursor) and +/-/0,
// pans by dragging, double-click toggles a repeated block, and turns arrow keys and Tab into moves along edges (the
// view decides where they lead). The minimap shows the whole scene with the canvas's visible part; clicking or
// dragging it moves the canvas there.
#include <QGraphicsView>
#include <QPixmap>
#include <QTransform>

#include "views/graph/GraphData.h"

namespace npuwb::ui {

class GraphCanvas : public QGraphicsView {
    Q_OBJECT
public:
    using Move = GraphMove;
    explicit GraphCanvas(QWidget* parent = nullptr);
    void zoomBy(double factor);
    void fit();
    double zoom() const { return transform().m11(); }

signals:
    void nodeClicked(int node);
    void blockClicked(int block);
    /// Double-click on a collapsed block's box or an expanded block's frame (or a node inside it).
    void blockToggleRequested(int block);
    /// Right-click on a node (`node` >= 0), a collapsed block's box or an expanded block's frame (`block` >= 0).
    void blockMenuRequested(int node, int block, const QPoint& globalPos);
    void moveRequested(GraphMove move);
    /// The visible part of the scene changed (scroll, zoom, resize): the minimap follows.
    void viewportMoved();

protected:
    bool event(QEvent* event) override;  // Tab/Backtab would move the focus away otherwise
    void keyPressEvent(QKeyEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void contextMenuEvent(QContextMenuEvent* event) override;
    void scrollContentsBy(int dx, int dy) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    QPoint pressPos_;
};

/// A widget, not a second view of the scene: it paints a picture of the scene made once per layout or change (a
/// 10,000-node scene took 100 ms a paint) and the canvas's visible part over it, so scrolling stays cheap.
class GraphMinimap : public QWidget {
    Q_OBJECT
public:
    GraphMinimap(GraphCanvas* canvas, QWidget* parent = nullptr);
    /// Paints the scene afresh: after a new layout or new colours (not per selection: a picture of 10,000 nodes
    /// takes about 100 ms).
    void refit();
    /// Nothing to show (a new model, not laid out yet) until the next refit.
    void clear();

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    /// Scene to widget: uniform scale, centred.
    QTransform toWidget() const;
    void moveCanvasTo(const QPoint& pos);

    GraphCanvas* canvas_;
    QPixmap picture_;
    QRectF source_;  // the scene rect the picture shows (set by refit)
};

}  // namespace npuwb::ui
