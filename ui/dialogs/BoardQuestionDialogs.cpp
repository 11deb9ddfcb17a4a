#include "dialogs/BoardQuestionDialogs.h"

#include <QCheckBox>

#include "dialogs/HostKeyDialog.h"
#include "dialogs/SecretDialog.h"

namespace npuwb::ui {

BoardQuestionDialogs::BoardQuestionDialogs(QWidget* dialogParent) : dialogParent_(dialogParent) {}

BoardQuestions::Withdraw BoardQuestionDialogs::show(QDialog* dialog) {
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->open();
    emit dialogShown(dialog);
    return [dialog = QPointer<QDialog>(dialog)] {
        if (dialog) dialog->reject();
    };
}

BoardQuestions::Withdraw BoardQuestionDialogs::askTrustHostKey(const remote::HostKeyInfo& info,
                                                               std::function<void(bool trust)> answer) {
    auto* dialog = new HostKeyDialog(info, dialogParent_);
    connect(dialog, &QDialog::finished, dialog, [answer](int result) { answer(result == QDialog::Accepted); });
    return show(dialog);
}

BoardQuestions::Withdraw BoardQuestionDialogs::askSecret(const QString& kind, const QString& board,
                                                         const QString& prompt, bool canRemember,
                                                         std::function<void(std::optional<SecretAnswer>)> answer) {
    auto* dialog = new SecretDialog(kind, board, prompt, dialogParent_);
    dialog->rememberBox()->setEnabled(canRemember);
    connect(dialog, &QDialog::finished, dialog, [answer, dialog](int result) {
        if (result == QDialog::Accepted) answer(SecretAnswer{.secret = dialog->secret(), .remember = dialog->remember()});
        else answer(std::nullopt);
    });
    return show(dialog);
}

}  // namespace npuwb::ui
