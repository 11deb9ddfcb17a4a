#pragma once
// The Graph tab: the open model as a node-link diagram laid out by Graphviz dot (a child process, jobs/
// GraphLayoutJob), nodes coloured by a metric of the last run or estimate, fused layers as group boxes, a minimap,
// search by name or op type, keyboard moves along edges and a properties panel. It selects through the shared
// LayerSelection and follows it, so a layer picked in any tab is centred here. Repeated blocks found in the node
// names (GraphBlocks) can be collapsed to one box each: by default on big models; the state survives relayouts and
// edits of the model.
#include <QElapsedTimer>
#include <QHash>
#include <QPointer>
#include <QSet>

#include <memory>
#include <vector>

#include "core/WorkbenchView.h"
#include "models/GraphLayout.h"
#include "views/graph/GraphBlocks.h"
#include "views/graph/GraphCanvas.h"
#include "views/graph/GraphColoring.h"
#include "views/graph/GraphData.h"

class QAction;
class QComboBox;
class QGraphicsScene;
class QLabel;
class QLineEdit;
class QPushButton;
class QSplitter;

namespace npuwb::ui {

class GraphLayoutJob;
class GraphBlockFrameItem;
class GraphBlockItem;
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
    /// The drawn node of GraphData node `index`, nullptr before a layout is shown or while it is in a collapsed
    /// block.
    GraphNodeItem* nodeItem(int index) const;
    int nodeItemCount() const { return int(items_.size()); }
    /// The box drawing `index`: its own, or its collapsed block's.
    GraphNodeItem* drawnItem(int index) const;

    // Repeated blocks
    const GraphBlocks& blocks() const { return blocks_; }
    bool isBlockCollapsed(int block) const;
    /// Collapses or expands one block, or all, and lays the graph out again.
    void setBlockCollapsed(int block, bool collapsed);
    void setAllBlocksCollapsed(bool collapsed);
    /// A collapsed block's box, nullptr when expanded or not drawn yet.
    GraphBlockItem* blockItem(int block) const;
    /// Boxes on the canvas: nodes outside collapsed blocks plus one per collapsed block.
    int drawnBoxCount() const;
    /// The outline of an expanded block while others are collapsed, else nullptr.
    GraphBlockFrameItem* blockFrame(int block) const;
    int currentBlock() const { return currentBlock_; }
    /// Collapse (checked) or expand all blocks, Ctrl+Shift+B.
    QAction* collapseBlocksAction() const { return collapseAction_; }
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
    /// The input sizes the user chose are resolved: value shapes and block MACs at those sizes.
    void onShapesResolved();
    std::shared_ptr<const LearnedShapes> shapesAtChosenSizes() const;
    QString edgeToolTip(const std::vector<int>& dataEdges) const;
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
    void clearCurrent();
    void onNodeClicked(int node);
    void onBlockClicked(int block);
    void onBlockMenu(int node, int block, const QPoint& globalPos);
    /// After a new model's data: which blocks start collapsed (a new model: all when big; an edit: as before).
    void applyBlockState(bool fresh, const QSet<QString>& collapsedBefore);
    QSet<QString> collapsedPrefixes() const;
    void updateCollapseAction();
    void relayoutForBlocks(int focusNode, int focusBlock);
    /// Brings focusBlock_ (else focusNode_) into view after a relayout.
    void showFocus();
    /// A node's name as its box shows it: inside an outlined (expanded) block, after the block's scope.
    QString shownName(int node) const;
    void drawBlockFrames();
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
    GraphBlocks blocks_;
    std::vector<bool> collapsed_;         // per block
    FoldedGraph folded_;                  // what the shown (or running) layout draws
    std::vector<GraphBlockItem*> blockItems_;        // per block: its box while collapsed
    std::vector<GraphBlockFrameItem*> blockFrames_;  // per block: its outline while expanded among collapsed ones
    std::vector<QColor> blockColors_;
    QString blockNote_;  // how the blocks are coloured, for the legend
    QAction* collapseAction_;
    int currentBlock_ = -1;
    int focusNode_ = -1;   // centred once the next layout is shown (the current node when all blocks toggle)
    int focusBlock_ = -1;  // shown from its top once the next layout is shown (a block just expanded or collapsed)
    bool freshModel_ = false;  // the next onModelChanged is a newly opened model, not an edit
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
