#pragma once
// Board telemetry during a remote run, over time: NPU load (%, left axis; mean over NPU cores) and the CPU,
// NPU and DDR clocks (MHz, right axis; CPU is the fastest core). Fed with the agent's telemetry events.
#include <QWidget>

#include <optional>
#include <vector>

#include "npuwb/AgentProtocol.h"

class QCustomPlot;
class QCPGraph;
class QCPItemText;

namespace npuwb::ui {

/// One agent telemetry event (AgentTelemetry) as the chart plots it; absent values stay empty.
struct TelemetrySample {
    double seconds = 0.0;
    std::optional<double> npuLoadPercent;
    std::optional<double> cpuMHz, npuMHz, ddrMHz;
    std::optional<double> rssMiB;
};
TelemetrySample telemetrySampleFrom(const AgentTelemetry& event);

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
