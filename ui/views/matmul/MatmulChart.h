#pragma once
// Matmul throughput against size: GOP/s over 2*M*K*N (both log scales). One measured series per type and layout
// and where it ran (this CPU: circles; a board's NPU: squares, the legend naming the host); a new sweep of the same
// replaces its series. The cost model's NPU estimate of each type and layout is one dashed series (the points of
// every sweep of it), the chip's peak for the type a dotted line.
#include <QColor>
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

    /// Adds (or replaces) the measured series of this result's chip, type, layouts and host, and adds its points
    /// to the estimate of that chip, type and layouts.
    void addResult(const MatmulBenchResult& result);
    void clear();
    /// Measured series.
    int seriesCount() const { return static_cast<int>(measured_.size()); }
    /// The measured series of `result`'s spec measured where `result` was (null: none).
    QCPGraph* measuredGraph(const MatmulBenchResult& result) const;
    QCustomPlot* plot() const { return plot_; }

private:
    struct Spec {  // one chip, type and layouts
        QColor color;
        QCPGraph* estimate = nullptr;
        QCPGraph* peak = nullptr;
        std::map<double, double> estimateGops;  // by operation count, of every sweep shown
    };
    void rescale();

    QCustomPlot* plot_;
    std::map<QString, Spec> specs_;          // by "RK3588 int8 B native"
    std::map<QString, QCPGraph*> measured_;  // by spec and host
    int colorsUsed_ = 0;
};

}  // namespace npuwb::ui
