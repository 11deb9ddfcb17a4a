#pragma once
// The Graph view's zoomable canvas and its minimap. The canvas zooms with the wheel (around the cursor) and +/-/0,
// pans by dragging, and turns arrow keys and Tab into moves along edges (the view decides where they lead). The
// minimap shows the whole scene with the canvas's visible part; clicking or dragging it moves the canvas there.
#include <QGraphicsView>

namespace npuwb::ui {

class GraphCanvas : public QGraphicsView {
    Q_OBJECT
public:
    enum class Move { Producer, Consumer, PreviousSibling, NextSibling };

    explicit GraphCanvas(QWidget* parent = nullptr);
    void zoomBy(double factor);
    void fit();
    double zoom() const { return transform().m11(); }

signals:
    void nodeClicked(int node);
    void moveRequested(Move move);
    /// The visible part of the scene changed (scroll, zoom, resize): the minimap follows.
    void viewportMoved();

protected:
    bool event(QEvent* event) override;  // Tab/Backtab would move the focus away otherwise
    void keyPressEvent(QKeyEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void scrollContentsBy(int dx, int dy) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    QPoint pressPos_;
};

class GraphMinimap : public QGraphicsView {
    Q_OBJECT
public:
    GraphMinimap(GraphCanvas* canvas, QWidget* parent = nullptr);
    /// Fits the whole scene again (after a new layout).
    void refit();

protected:
    void drawForeground(QPainter* painter, const QRectF& rect) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;

private:
    GraphCanvas* canvas_;
};

}  // namespace npuwb::ui
