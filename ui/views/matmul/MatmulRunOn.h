#pragma once
// The Matmul form's "Run on" row: this computer's CPU or one of the saved boards (kept in step with the Boards tab's
// list, the choice kept by name), and for a board the NPU cores of the sweep. Remembered in the view's settings.
#include <QWidget>

#include <optional>

#include "models/BoardSettings.h"
#include "npuwb/ChipProfile.h"
#include "npuwb/sdk/ModelRuntime.h"

class QComboBox;
class QSettings;

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
    /// Nothing changes while a sweep runs.
    void setRunning(bool running);
    void save(QSettings& settings) const;
    void restore(QSettings& settings);

    QComboBox* targetBox() const { return target_; }
    QComboBox* coreMaskBox() const { return coreMask_; }

signals:
    void changed();

private:
    void fillBoards();
    void updateEnabled();

    BoardListModel* boards_;
    QComboBox* target_;    // "This computer's CPU", then the saved boards (by name)
    QComboBox* coreMask_;  // the board's NPU cores
    bool running_ = false;
};

}  // namespace npuwb::ui
