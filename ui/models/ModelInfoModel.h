#pragma once
// The model info panel's tree: file facts, inputs/outputs with shapes, totals, op histogram, and the
// last run's timing and memory once there is one.
#include <QStandardItemModel>

#include "npuwb/Report.h"

namespace npuwb::ui {

class ModelInfoModel : public QStandardItemModel {
    Q_OBJECT
public:
    explicit ModelInfoModel(QObject* parent = nullptr);

    /// `atShapes` ("input x [1,3,480,480]"): the summary's shapes and MACs are at these input sizes, and a row says so.
    void setSummary(const ModelSummary& summary, const QString& atShapes = {});
    /// A compiled model (.rknn) run by `runtime`: the file, and its inputs and outputs as the board's runtime
    /// reported them in `report` (null: not run yet, the rows say so).
    void setCompiledModel(const ModelSummary& summary, const QString& runtime, const Report* report);
    /// Adds (or replaces) the "Last run" section; `fromRuntime` (a compiled model's report) also the "Runtime
    /// memory" section (the runtime's memory query: weights once, internal tensors, I/O).
    void setRunResult(const Report& report, bool fromRuntime = false);
    void clearAll();

    /// Top-level section by title ("Inputs", "Operators", ...), nullptr when absent; for tests and views.
    QStandardItem* section(const QString& title) const;

private:
    QStandardItem* addSection(const QString& title);
    static void addRow(QStandardItem* parent, const QString& key, const QString& value, const QString& tip = {});
};

}  // namespace npuwb::ui
