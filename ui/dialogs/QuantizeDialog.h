#pragma once
// Quantize dialog: data set (dataset.txt or image folder), preprocessing with a live preview of the first sample
// as the model will see it, scheme, observer, per-tensor / per-channel weights, w4 group size, auto-hybrid target.
// Quantize runs on a worker (QuantizeJob) with a progress bar and Cancel; the QDQ model is then saved through a
// file dialog. Every field is remembered (QSettings).
#include <QDialog>

#include <map>
#include <memory>

#include "npuwb/ir/Graph.h"
#include "jobs/QuantizeJob.h"

class QCheckBox;
class QComboBox;
class QDialogButtonBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;

namespace npuwb::ui {

class QuantizeDialog : public QDialog {
    Q_OBJECT
public:
    QuantizeDialog(std::shared_ptr<const Model> floatModel, QWidget* parent = nullptr);
    ~QuantizeDialog() override;

    /// The request the fields describe (throws npuwb::Error for a malformed mean/std list).
    QuantizeRequest request() const;
    void setDataset(const QString& path);
    /// Sizes for symbolic input dims (the Input Shapes dialog's): images are resized to their height and width.
    void setInputShapes(const std::map<std::string, Shape>& shapes);
    /// Whether Quantize asks for a file to save the QDQ model in (off in tests and the --quantize-dataset flag).
    void setAskToSave(bool ask) { askToSave_ = ask; }
    std::shared_ptr<const QuantizeOutcome> outcome() const { return outcome_; }
    QuantizeJob* job() const { return job_; }
    QLabel* previewLabel() const { return preview_; }
    QLabel* previewInfo() const { return previewInfo_; }
    QPushButton* quantizeButton() const { return quantize_; }
    QProgressBar* progressBar() const { return progress_; }
    QComboBox* schemeBox() const { return scheme_; }
    QComboBox* observerBox() const { return observer_; }
    /// The preprocessing "size" (0 = the model's input size): needed when the model's H/W are symbolic.
    QSpinBox* widthBox() const { return width_; }
    QSpinBox* heightBox() const { return height_; }
    QComboBox* roundingBox() const { return rounding_; }
    QCheckBox* autoHybridBox() const { return autoHybrid_; }

public slots:
    void startQuantize();
    void updatePreview();
    void reject() override;  // cancels a running job first

signals:
    void quantized(std::shared_ptr<const QuantizeOutcome> outcome);

private:
    void buildUi();
    void restoreSettings();
    void saveSettings() const;
    void setRunning(bool running);
    void prefillInputSize();
    void onFinished(std::shared_ptr<const QuantizeOutcome> outcome);

    std::shared_ptr<const Model> model_;
    std::map<std::string, Shape> inputShapes_;
    QuantizeJob* job_;
    std::shared_ptr<const QuantizeOutcome> outcome_;
    bool askToSave_ = true;

    QLineEdit* dataset_ = nullptr;
    QLineEdit* mean_ = nullptr;
    QLineEdit* std_ = nullptr;
    QDoubleSpinBox* scale_ = nullptr;
    QComboBox* color_ = nullptr;
    QComboBox* resize_ = nullptr;
    QSpinBox* width_ = nullptr;
    QSpinBox* height_ = nullptr;
    QSpinBox* fill_ = nullptr;
    QComboBox* layout_ = nullptr;
    QLabel* preview_ = nullptr;
    QLabel* previewInfo_ = nullptr;
    QComboBox* scheme_ = nullptr;
    QComboBox* observer_ = nullptr;
    QComboBox* rounding_ = nullptr;
    QCheckBox* perChannel_ = nullptr;
    QSpinBox* groupSize_ = nullptr;
    QCheckBox* autoHybrid_ = nullptr;
    QDoubleSpinBox* hybridTarget_ = nullptr;
    QSpinBox* maxSamples_ = nullptr;
    QSpinBox* accuracySamples_ = nullptr;
    QProgressBar* progress_ = nullptr;
    QLabel* status_ = nullptr;
    QPushButton* quantize_ = nullptr;
    QPushButton* cancel_ = nullptr;
};

}  // namespace npuwb::ui
