#pragma once
// The target toolbar: chip (every profile availableChipProfiles() finds), NPU data type and cores, shared by the
// Estimate and Suggestions views. The window adds the Estimate and Advise actions.
#include <QToolBar>

#include "jobs/EstimateJob.h"

class QComboBox;
class QSpinBox;

namespace npuwb::ui {

class TargetOptionsBar : public QToolBar {
    Q_OBJECT
public:
    static constexpr const char* kDefaultChip = "rk3588";

    explicit TargetOptionsBar(QWidget* parent = nullptr);

    TargetOptions options() const;
    /// Unknown chips fall back to the default (a saved setting may name a profile that was removed).
    void setOptions(const TargetOptions& options);

    QComboBox* chipBox() const { return chip_; }
    QComboBox* dtypeBox() const { return dtype_; }
    QSpinBox* coresBox() const { return cores_; }

signals:
    void optionsChanged();

private:
    /// Limits the core count to what the chosen chip has.
    void onChipChanged();

    QComboBox* chip_;
    QComboBox* dtype_;
    QSpinBox* cores_;
};

}  // namespace npuwb::ui
