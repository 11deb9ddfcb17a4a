#pragma once
// The Boards tab: the saved connections (the workbench's board list: add / edit / remove, saved in QSettings
// without secrets), "Test connection" and "Deploy" on a worker with progress and Cancel (host-key and secret
// questions as dialogs), and what the board's agent probe found (arch, kernel, CPU clusters, memory, NPU
// driver/load/clock, DDR, librknnrt) in a readable tree.
#include <map>
#include <memory>

#include <nlohmann/json.hpp>

#include "core/WorkbenchView.h"
#include "models/BoardSettings.h"

class QAction;
class QLabel;
class QProgressBar;
class QTableView;
class QTreeView;

namespace npuwb::ui {

struct BoardCheck;
class BoardJob;
class BoardQuestionDialogs;
class BoardListModel;
class ProbeInfoModel;

class BoardsView : public WorkbenchView {
    Q_OBJECT
public:
    BoardsView(Workbench& workbench, QWidget* parent);
    ~BoardsView() override;

    BoardListModel* model() const { return model_; }
    ProbeInfoModel* probeModel() const { return probe_; }
    QTableView* tableView() const { return table_; }
    QTreeView* probeView() const { return probeView_; }
    BoardJob* job() const { return job_; }
    /// The dialogs the job's connection questions open.
    BoardQuestionDialogs* questions() const { return questions_.get(); }
    QLabel* statusLabel() const { return status_; }
    QAction* testAction() const { return testAction_; }
    QAction* deployAction() const { return deployAction_; }

    /// -1 when nothing is selected.
    int currentRow() const;
    void selectBoard(int row);
    /// Shows a probe result for `board` (also used for a probe loaded from a file: `npuwb --probe-json`).
    void showProbe(const QString& boardName, const nlohmann::json& probe);
    bool isBusy() const;

public slots:
    void addBoard();
    void editBoard();
    void removeBoard();
    void testConnection();
    void deployAgent();
    void cancel();

signals:
    /// A test or deploy ended (tests wait for this).
    void checkFinished(bool ok);

private:
    void onProgress(const QString& text, qint64 done, qint64 total);
    void onFinished(std::shared_ptr<const BoardCheck> result);
    void updateActions();
    void showCurrentProbe();

    BoardListModel* model_;  // the workbench's
    ProbeInfoModel* probe_;
    std::shared_ptr<BoardQuestionDialogs> questions_;
    BoardJob* job_;
    QTableView* table_;
    QTreeView* probeView_;
    QLabel* probeTitle_;
    QLabel* status_;
    QProgressBar* progress_;
    QAction* addAction_;
    QAction* editAction_;
    QAction* removeAction_;
    QAction* testAction_;
    QAction* deployAction_;
    QAction* cancelAction_;
    std::map<QString, nlohmann::json> probes_;  // board name -> last probe, this session
};

}  // namespace npuwb::ui
