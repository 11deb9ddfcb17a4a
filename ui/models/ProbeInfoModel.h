#pragma once
// What `npuwb-agent probe` found on a board, as a readable tree: board and OS, CPU clusters with their
// frequencies and governors, memory, NPU driver/load/clock, DDR clock, librknnrt. Absent facts read "absent"
// (the agent reports missing files as null, never as errors).
#include <QStandardItemModel>

#include <nlohmann/json.hpp>

namespace npuwb::ui {

class ProbeInfoModel : public QStandardItemModel {
    Q_OBJECT
public:
    explicit ProbeInfoModel(QObject* parent = nullptr);

    /// Replaces the tree with this probe result (the agent's JSON object).
    void setProbe(const nlohmann::json& probe);
    /// Replaces the tree with a connection test that found no agent yet (`uname -m` etc. only).
    void setBasics(const QString& board, const QString& arch, const QString& kernel, const QString& note);
    void clearAll();

    /// Top-level section by title, nullptr when absent (tests).
    QStandardItem* section(const QString& title) const;
    /// The value shown for `key` under section `title`, empty when absent (tests).
    QString value(const QString& title, const QString& key) const;

private:
    QStandardItem* addSection(const QString& title, const QString& summary = {});
    static void addRow(QStandardItem* parent, const QString& key, const QString& value);
};

/// "1.80 GHz", "408 MHz"; "absent" for a missing value.
QString formatHz(const nlohmann::json& hz);

}  // namespace npuwb::ui
