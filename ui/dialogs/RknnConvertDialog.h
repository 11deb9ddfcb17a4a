#pragma once
// Convert to RKNN: the hand-off to RKNN-Toolkit2 (npuwb/RknnConversion.h). Target chip, data set, preprocessing,
// input sizes, the quantization it follows (the last one of this session, a report file, or none), the Python with
// the toolkit (remembered), the output .rknn. It shows the script it writes; when that Python imports rknn.api, Run
// converts (a child process: progress from the script's step lines, Cancel); otherwise it shows the exact command
// with a Copy button.
#include <QDialog>

#include <memory>
#include <optional>

#include "jobs/RknnConvertJob.h"
#include "npuwb/RknnConversion.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QTimer;

namespace npuwb::ui {

class RknnConvertDialog : public QDialog {
    Q_OBJECT
public:
    /// `session`: the last quantization of this session (offered first), or null.
    RknnConvertDialog(std::shared_ptr<const Model> model, const QString& modelPath, const QString& target,
                      std::shared_ptr<const rknn::QuantizationFacts> session, QWidget* parent = nullptr);
    ~RknnConvertDialog() override;

    /// The plan the fields describe, or nullopt with the reason in statusText().
    const std::optional<rknn::ConversionPlan>& plan() const { return plan_; }
    QString statusText() const;
    QString command() const;
    RknnConvertJob* job() const { return job_; }
    QPushButton* runButton() const { return run_; }
    QPlainTextEdit* scriptView() const { return script_; }
    QPlainTextEdit* logView() const { return log_; }
    QProgressBar* progressBar() const { return progress_; }
    void setDataset(const QString& path);
    void setPreprocessing(const QString& path);
    void setInputShapes(const QString& specs);
    void setPython(const QString& python);
    void setOutput(const QString& path);
    void setTarget(const QString& chip);

public slots:
    /// Rebuilds the plan and the script preview from the fields (also on every edit, debounced).
    void refresh();
    /// Writes the script and its data set list; true on success.
    bool writeScript();
    void startRun();
    void reject() override;  // cancels a running conversion first

signals:
    void converted(const QString& rknnPath);

private:
    void buildUi();
    void restoreSettings();
    void saveSettings() const;
    void setRunning(bool running);
    void probeToolkit();
    void onProbed(bool available, const QString& detail);

    std::shared_ptr<const Model> model_;
    QString modelPath_;
    std::shared_ptr<const rknn::QuantizationFacts> session_;
    std::optional<rknn::ConversionPlan> plan_;
    RknnConvertJob* job_;
    bool toolkitAvailable_ = false;
    QTimer* refreshTimer_;
    QComboBox* target_;
    QLineEdit* dataset_;
    QLineEdit* preprocess_;
    QLineEdit* shapes_;
    QComboBox* source_;
    QLineEdit* report_;
    QLineEdit* python_;
    QLineEdit* output_;
    QLabel* toolkit_;
    QLabel* status_;
    QPlainTextEdit* script_;
    QLineEdit* command_;
    QPushButton* copy_;
    QPushButton* write_;
    QPushButton* run_;
    QPushButton* cancel_;
    QProgressBar* progress_;
    QPlainTextEdit* log_;
};

}  // namespace npuwb::ui
