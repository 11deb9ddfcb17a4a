#pragma once
// The Graph view's properties panel for the current node: identity, the layer's metrics (last run, estimate),
// attributes, inputs and outputs with shapes and types, and a weights summary with a histogram of the largest
// weight; or a collapsed block's summary.
#include <QWidget>

#include <vector>

#include "views/graph/GraphBlocks.h"
#include "views/graph/GraphColoring.h"
#include "views/graph/GraphData.h"

class QStandardItem;
class QStandardItemModel;
class QTreeView;

namespace npuwb::ui {

/// Bins of a weight's values, min and max: what the histogram draws.
struct WeightHistogramData {
    QString title;
    std::vector<int> bins;
    double min = 0.0, max = 0.0;
};

class WeightHistogram : public QWidget {
    Q_OBJECT
public:
    using QWidget::QWidget;
    void setData(WeightHistogramData data);
    const WeightHistogramData& data() const { return data_; }
    QSize sizeHint() const override { return {240, 110}; }

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    WeightHistogramData data_;
};

class NodeProperties : public QWidget {
    Q_OBJECT
public:
    explicit NodeProperties(QWidget* parent = nullptr);
    /// `node` -1 clears the panel.
    void showNode(const GraphData& data, int node, const MetricSources& sources);
    /// A collapsed block: scope, node count, parameters, MACs, its op types, the last run's and estimate's totals,
    /// and the values it takes from and gives to the rest of the graph.
    void showBlock(const GraphData& data, const GraphBlock& block, const MetricSources& sources);
    /// Sections (Node, Last run, Estimate, Attributes, Inputs, Outputs, Weights) with Property/Value rows.
    QStandardItemModel* model() const { return model_; }
    QTreeView* tree() const { return tree_; }
    WeightHistogram* histogram() const { return histogram_; }

protected:
    void resizeEvent(QResizeEvent* event) override;
    void showEvent(QShowEvent* event) override;

private:
    void fitKeyColumn();
    void fill(const GraphData& data, int node, const MetricSources& sources);
    QStandardItem* section(const QString& title);
    void addMetrics(const Report& report, const QString& title, const QString& name);
    void addAccuracy(const AccuracySection& accuracy, const QString& name);
    void addWeights(const Graph& graph, const Node& node);

    QStandardItemModel* model_;
    QTreeView* tree_;
    WeightHistogram* histogram_;
};

}  // namespace npuwb::ui
