#pragma once
// The target toolbar: chip (every profile availableChipProfiles() finds), NPU data type and cores: the workbench's
// target, which the Estimate and Suggestions views use. Views add their actions (Estimate, Advise) to it.
#include <QToolBar>

#include "jobs/EstimateJob.h"

class QComboBox;
class QSpinBox;

namespace npuwb::ui {

class Workbench;

class TargetOptionsBar : public QToolBar {
    Q_OBJECT
public:
    static constexpr const char* kDefaultChip = "rk3588";

    /// Shows the workbench's target and sets it when the user changes a field.
    TargetOptionsBar(Workbench& workbench, QWidget* parent);

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
