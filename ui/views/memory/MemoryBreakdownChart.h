#pragma once
// Where a run's memory goes, one horizontal bar per figure with its size written beside it: the weights, the
// planned activation arena and its lower bound, the graph's inputs and outputs, and the process's peak resident set;
// for a whole-model runtime (NPU) run, the runtime's own figures too: weights shared by every context, each
// context's internal memory and their total.
#include <QString>
#include <QWidget>

#include <vector>

#include "npuwb/Report.h"

class QCustomPlot;

namespace npuwb::ui {

class MemoryBreakdownChart : public QWidget {
    Q_OBJECT
public:
    struct Row {
        QString label;
        int64_t bytes = 0;
        QString tip;
    };

    explicit MemoryBreakdownChart(QWidget* parent = nullptr);

    void setReport(const Report& report);
    void clear();
    /// The bars shown, top to bottom.
    const std::vector<Row>& rows() const { return rows_; }
    QCustomPlot* plot() const { return plot_; }

    /// The figures of a report as rows (figures a report lacks, e.g. an unknown peak RSS, are left out).
    static std::vector<Row> rowsOf(const Report& report);

private:
    void draw();

    QCustomPlot* plot_;
    std::vector<Row> rows_;
};

}  // namespace npuwb::ui
