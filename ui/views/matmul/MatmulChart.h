#pragma once
// Matmul throughput against size: GOP/s over 2*M*K*N (both log scales), one measured series per type and layout
// (a new sweep of the same type and layout replaces its series), the cost model's NPU estimate of each as a dashed
// series, and the chip's peak for the type as a dotted line.
#include <QWidget>

#include <map>

#include "npuwb/MatmulBench.h"

class QCustomPlot;
class QCPGraph;

namespace npuwb::ui {

class MatmulChart : public QWidget {
    Q_OBJECT
public:
    explicit MatmulChart(QWidget* parent = nullptr);

    /// Adds (or replaces) the series of this result's chip, type and layouts.
    void addResult(const MatmulBenchResult& result);
    void clear();
    int seriesCount() const { return static_cast<int>(series_.size()); }
    QCustomPlot* plot() const { return plot_; }

private:
    struct Series {
        QCPGraph* measured = nullptr;
        QCPGraph* estimate = nullptr;
        QCPGraph* peak = nullptr;
    };
    void rescale();

    QCustomPlot* plot_;
    std::map<QString, Series> series_;  // by "RK3588 int8 B native"
};

}  // namespace npuwb::ui
