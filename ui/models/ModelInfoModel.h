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

    void setSummary(const ModelSummary& summary);
    /// Adds (or replaces) the "Last run" section.
    void setRunResult(const Report& report);
    void clearAll();

    /// Top-level section by title ("Inputs", "Operators", ...), nullptr when absent; for tests and views.
    QStandardItem* section(const QString& title) const;

private:
    QStandardItem* addSection(const QString& title);
    static void addRow(QStandardItem* parent, const QString& key, const QString& value, const QString& tip = {});
};

}  // namespace npuwb::ui
