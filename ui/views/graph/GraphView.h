#pragma once
// The Graph tab: the open model as a node-link diagram laid out by Graphviz dot (a child process, jobs/
// GraphLayoutJob), nodes coloured by a metric of the last run or estimate, fused layers as group boxes, a minimap,
// search by name or op type, keyboard moves along edges and a properties panel. It selects through the shared
// LayerSelection and follows it, so a layer picked in any tab is centred here.
#include <QElapsedTimer>
#include <QHash>
#include <QPointer>

#include <memory>
#include <vector>

#include "core/WorkbenchView.h"
#include "models/GraphLayout.h"
#include "views/graph/GraphCanvas.h"
#include "views/graph/GraphColoring.h"
#include "views/graph/GraphData.h"

class QComboBox;
class QGraphicsScene;
class QLabel;
class QLineEdit;
class QPushButton;
class QSplitter;

namespace npuwb::ui {

class GraphLayoutJob;
class GraphGroupItem;
class GraphNodeItem;
class NodeProperties;

class GraphView : public WorkbenchView {
    Q_OBJECT
public:
    GraphView(Workbench& workbench, QWidget* parent);
    ~GraphView() override;

    void saveSettings(QSettings& settings) const override;
    void restoreSettings(QSettings& settings) override;
    /// Lays the model out now (also when the tab is hidden); resultShown follows once it is drawn.
    bool startFromCommandLine() override;

    // What tests and the window read
    GraphLayoutJob* layoutJob() const { return job_; }
    GraphCanvas* canvas() const { return canvas_; }
    GraphMinimap* minimap() const { return minimap_; }
    NodeProperties* properties() const { return properties_; }
    QLineEdit* searchField() const { return search_; }
    QComboBox* metricBox() const { return metric_; }
    QLabel* statusLabel() const { return status_; }
    QLabel* legendLabel() const { return legend_; }
    const GraphData& graphData() const { return data_; }
    const NodeColors& nodeColors() const { return colors_; }
    /// The drawn node of GraphData node `index`, nullptr before a layout is shown.
    GraphNodeItem* nodeItem(int index) const;
    int nodeItemCount() const { return int(items_.size()); }
    int groupCount() const { return groupCount_; }
    int currentNode() const { return current_; }
    const std::vector<int>& searchHits() const { return hits_; }
    void setMetric(GraphMetric metric);
    GraphMetric metric() const;

signals:
    /// A layout is on screen (after each model load, edit, or change of fused groups).
    void layoutShown();
    /// A layout was shown, failed or was cancelled: what `--view graph --screenshot` waits for.
    void layoutEnded();

protected:
    void showEvent(QShowEvent* event) override;

private:
    void onModelChanged();
    void onGroupsMaybeChanged();
    void startLayout();
    void onLayoutFinished(std::shared_ptr<const LayoutResult> result, qint64 elapsedMs);
    void onLayoutFailed(const QString& message);
    /// Adds the drawn layout's items from `from` on, a batch per event loop turn, then shows it (showLaidOut).
    void addItemsInTurns(std::shared_ptr<const LayoutResult> result, qint64 layoutMs, size_t from, quint64 generation);
    void showLaidOut(const LayoutResult& result, qint64 layoutMs);
    /// (Re)draws the fused groups' boxes around the node items, fits the scene rect, recolours.
    void drawGroupsAndFit();
    void recolor();
    void showLegend();
    MetricSources sources() const;
    std::vector<QStringList> fusedGroups() const;
    void setCurrent(int node, bool centre);
    void onNodeClicked(int node);
    void publish(int node);
    void followSelection(const QStringList& names);
    void onMove(GraphCanvas::Move move);
    void onSearchChanged(const QString& text);
    void nextHit();
    void refreshProperties();

    GraphLayoutJob* job_;
    QGraphicsScene* scene_;
    GraphCanvas* canvas_;
    GraphMinimap* minimap_;
    NodeProperties* properties_;
    QSplitter* splitter_;
    QLabel* status_;
    QLabel* legend_;
    QComboBox* metric_;
    QLineEdit* search_;
    QLabel* hitsLabel_;
    QPushButton* cancel_;

    GraphData data_;
    NodeColors colors_;
    std::vector<GraphNodeItem*> items_;
    std::vector<QSizeF> nodeSizes_;  // each node's box, as the layout was asked with
    std::vector<QStringList> layoutGroups_;  // the fused groups the shown (or running) layout was asked with
    std::vector<GraphGroupItem*> groups_;  // the fused layers' boxes now in the scene
    int groupCount_ = 0;
    int current_ = -1;
    int siblingsOf_ = -1;  // the producer whose consumers Left/Right cycle through (the node Down came from)
    std::vector<int> hits_;
    int hit_ = -1;
    bool layoutPending_ = false;
    bool buildPending_ = false;     // a new model's graph data is built in the next event loop turn
    bool startWhenBuilt_ = false;   // then lay it out even when hidden (--view graph asked for it)
    quint64 buildGeneration_ = 0;   // bumped per model: a pending build of the previous one is dropped
    bool drawing_ = false;          // a layout's items are being added, turn by turn
    quint64 drawGeneration_ = 0;    // bumped by a new model or layout: a drawing of the old one stops
    QElapsedTimer drawClock_;
    bool publishing_ = false;
};

}  // namespace npuwb::ui
