#pragma once
// The Matmul tab: the NPU's matmul API (RKNN SDK user guide V2.5.0, 4.1.1) without a model. A form specifies a
// sweep (chip, type, B and A/C layouts, lists of M, K, N, runs); what the chip cannot run shows under it as the
// engine words it, and Run stays disabled until it is fixed. Beneath it the chip's native layouts of the largest
// point (B with its K segments). "Run on" picks this computer's CPU or a saved board (with the NPU cores for the
// board). Run benchmarks the sweep on a worker (MatmulBenchJob on the CPU; BoardMatmulJob on the board's NPU through
// the agent, with connection stages; both with progress and Cancel); the result joins the chart (GOP/s against size,
// one series per type, layout and host, with the NPU estimate and the chip's peak) and fills the table.
#include <QStringList>

#include <map>
#include <memory>

#include "core/WorkbenchView.h"
#include "npuwb/MatmulBench.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTableView;

namespace npuwb::ui {

class BoardMatmulJob;
class BoardQuestionDialogs;
class MatmulBenchJob;
class MatmulBenchModel;
class MatmulChart;
class MatmulRunOn;

class MatmulView : public WorkbenchView {
    Q_OBJECT
public:
    MatmulView(Workbench& workbench, QWidget* parent);

    QList<ViewAction> viewActions() const override;
    void saveSettings(QSettings& settings) const override;
    void restoreSettings(QSettings& settings) override;
    /// `npuwb --view matmul` runs the form's sweep.
    bool startFromCommandLine() override;

    /// Sets the form (a test's or the command line's way in); false when a value is not offered.
    bool setForm(const QString& chip, const QString& type, const QString& bLayout, const QString& m, const QString& k,
                 const QString& n);
    /// Where Run measures: "CPU" (or empty) or a saved board's name, with the NPU cores ("auto", "0_1", ...) for a
    /// board; false when there is no such board or mask.
    bool setRunOn(const QString& target, const QString& coreMask = QStringLiteral("auto"));
    /// What the form's sweep would break on the chosen chip, as the engine words it (empty: Run is possible).
    QStringList problems() const { return problems_; }
    void startBench();
    void cancelBench();

    MatmulBenchJob* job() const { return job_; }
    BoardMatmulJob* boardJob() const { return boardJob_; }
    /// The dialogs a board sweep's connection questions open.
    BoardQuestionDialogs* boardQuestions() const { return questions_.get(); }
    MatmulRunOn* runOn() const { return runOn_; }
    QComboBox* chipBox() const { return chip_; }
    QLabel* summaryLabel() const { return summary_; }
    bool isRunning() const;
    MatmulBenchModel* model() const { return model_; }
    MatmulChart* chart() const { return chart_; }
    QPushButton* runButton() const { return run_; }
    QLabel* problemsLabel() const { return problemsLabel_; }
    QLabel* layoutsLabel() const { return layouts_; }

signals:
    void benchShown(std::shared_ptr<const MatmulBenchResult> result);

private:
    const ChipProfile* currentChip() const;
    void fillTypes();
    /// Chip and Run on as the Chip and Run toolbars say, while "As the toolbars" is on.
    void followToolbars();
    void updateForm();
    MatmulBenchOptions options(QStringList* problems) const;
    void onFinished(std::shared_ptr<const MatmulBenchResult> result);
    void onEnded();
    void onFailed(const QString& message, bool hostKeyChanged);
    void showStage(const QString& text, qint64 done, qint64 total);

    std::shared_ptr<BoardQuestionDialogs> questions_;
    MatmulBenchJob* job_;
    BoardMatmulJob* boardJob_;
    QAction* runAction_;
    QComboBox* chip_;
    QComboBox* type_;
    QComboBox* bLayout_;
    QComboBox* acLayout_;
    QLineEdit* m_;
    QLineEdit* k_;
    QLineEdit* n_;
    QSpinBox* runs_;
    MatmulRunOn* runOn_;
    QPushButton* run_;
    QPushButton* cancel_;
    QPushButton* clearChart_;
    QProgressBar* progress_;
    QLabel* problemsLabel_;
    QLabel* layouts_;
    QLabel* summary_;
    MatmulChart* chart_;
    MatmulBenchModel* model_;
    QTableView* table_;
    std::map<QString, ChipProfile> chips_;  // by profile file name, the ones with a matmul API
    QStringList problems_;
};

}  // namespace npuwb::ui
