#pragma once
// Board telemetry during a remote run, over time: NPU load (%, left axis; mean over NPU cores) and the CPU,
// NPU and DDR clocks (MHz, right axis; CPU is the fastest core). Fed with the agent's telemetry events.
#include <QWidget>

#include "models/Telemetry.h"

class QCustomPlot;
class QCPGraph;
class QCPItemText;

namespace npuwb::ui {

class TelemetryChart : public QWidget {
    Q_OBJECT
public:
    explicit TelemetryChart(QWidget* parent = nullptr);

    void clear(const QString& hint);
    void addSample(const TelemetrySample& sample);
    int sampleCount() const { return samples_; }
    QCustomPlot* plot() const { return plot_; }
    QCPGraph* npuLoadGraph() const { return load_; }
    QCPGraph* cpuGraph() const { return cpu_; }
    QCPGraph* npuGraph() const { return npu_; }
    QCPGraph* ddrGraph() const { return ddr_; }

private:
    QCustomPlot* plot_;
    QCPGraph* load_;
    QCPGraph* cpu_;
    QCPGraph* npu_;
    QCPGraph* ddr_;
    QCPItemText* hint_;
    int samples_ = 0;
    double maxMHz_ = 0.0;
};

}  // namespace npuwb::ui
