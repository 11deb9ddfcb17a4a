#pragma once
// The Matmul form's "Run on" row: this computer's CPU or one of the saved boards (kept in step with the Boards tab's
// list, the choice kept by name), for a board the NPU cores and the sweep's time limit, and "As the toolbars": on
// by default, the choice follows the Run toolbar's Target (and the view's chip the Chip toolbar); choosing here
// turns it off. Remembered in the view's settings.
#include <QWidget>

#include <optional>

#include "models/BoardSettings.h"
#include "npuwb/ChipProfile.h"
#include "npuwb/sdk/ModelRuntime.h"

class QCheckBox;
class QComboBox;
class QSettings;
class QSpinBox;

namespace npuwb::ui {

class BoardListModel;

class MatmulRunOn : public QWidget {
    Q_OBJECT
public:
    MatmulRunOn(BoardListModel* boards, QWidget* parent);

    /// The chosen board; nullopt: this computer's CPU.
    std::optional<BoardEntry> board() const;
    /// What the status line calls the target ("rock5b", "This computer's CPU").
    QString targetName() const;
    NpuCoreMask coreMask() const;
    /// The cores the mask runs on, for the estimate and the peak ("auto": the API's one core; "all": the chip's).
    static int64_t coresOf(NpuCoreMask mask, const ChipProfile& chip);
    /// "CPU" (or empty) or a saved board's name, and a core mask word ("auto", "0_1", ...); false when either is not
    /// offered.
    bool select(const QString& target, const QString& coreMask);
    /// Following the toolbars: the Run toolbar's target (a board's name, empty: this computer) becomes the choice.
    void followRunTarget(const QString& board);
    bool follows() const;
    void setFollows(bool follow);
    /// Seconds a board sweep may take, connect and deploy included.
    int timeLimitSeconds() const;
    /// Nothing changes while a sweep runs.
    void setRunning(bool running);
    void save(QSettings& settings) const;
    void restore(QSettings& settings);

    QComboBox* targetBox() const { return target_; }
    QComboBox* coreMaskBox() const { return coreMask_; }
    QCheckBox* followBox() const { return follow_; }
    QSpinBox* timeLimitBox() const { return timeLimit_; }

signals:
    void changed();
    /// "As the toolbars" was turned on or off.
    void followChanged(bool follow);

private:
    void fillBoards();
    void updateEnabled();

    BoardListModel* boards_;
    QComboBox* target_;    // "This computer's CPU", then the saved boards (by name)
    QComboBox* coreMask_;  // the board's NPU cores
    QSpinBox* timeLimit_;  // seconds
    QCheckBox* follow_;
    bool running_ = false;
};

}  // namespace npuwb::ui
