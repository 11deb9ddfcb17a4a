#pragma once
// Asks for a board password or a key passphrase, with "Remember in keychain" (off by default). The secret is
// only ever held in memory here; remembering goes through Keychain, never QSettings or a file.
#include <QDialog>

class QCheckBox;
class QLineEdit;

namespace npuwb::ui {

class SecretDialog : public QDialog {
    Q_OBJECT
public:
    /// kind: "password" or "passphrase"; prompt: what the server or libssh asked ("root@board's password: ").
    SecretDialog(const QString& kind, const QString& board, const QString& prompt, QWidget* parent = nullptr);

    QString secret() const;
    bool remember() const;
    QLineEdit* secretEdit() const { return edit_; }
    QCheckBox* rememberBox() const { return remember_; }

private:
    QLineEdit* edit_;
    QCheckBox* remember_;
};

}  // namespace npuwb::ui
