#pragma once
// BoardQuestions answered by the user in window-modal dialogs, opened with open() (no nested event loop): the
// host-key fingerprint dialog and the password / passphrase dialog. A withdrawn question closes its dialog.
#include <QObject>
#include <QPointer>

#include "jobs/BoardQuestions.h"

class QDialog;
class QWidget;

namespace npuwb::ui {

class BoardQuestionDialogs : public QObject, public BoardQuestions {
    Q_OBJECT
public:
    /// Dialogs are window-modal to `dialogParent` (may be null).
    explicit BoardQuestionDialogs(QWidget* dialogParent);

    Withdraw askTrustHostKey(const remote::HostKeyInfo& info, std::function<void(bool trust)> answer) override;
    Withdraw askSecret(const QString& kind, const QString& board, const QString& prompt, bool canRemember,
                       std::function<void(std::optional<SecretAnswer>)> answer) override;

signals:
    /// A question's dialog is open (tests answer it through this).
    void dialogShown(QDialog* dialog);

private:
    Withdraw show(QDialog* dialog);

    QPointer<QWidget> dialogParent_;
};

}  // namespace npuwb::ui
