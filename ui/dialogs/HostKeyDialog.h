#pragma once
// Host-key trust, as the user sees it. An unknown board: its address, key type and SHA256 fingerprint, with
// Trust / Reject (Reject is the default button). A changed key: a warning naming both fingerprints and how to
// fix it, with only Close: a changed key is never accepted from the GUI.
#include <QDialog>

#include "ssh/HostKeys.h"

class QLabel;
class QPushButton;

namespace npuwb::ui {

class HostKeyDialog : public QDialog {
    Q_OBJECT
public:
    /// Unknown host: asks. accept() = trust and remember in known_hosts.
    explicit HostKeyDialog(const remote::HostKeyInfo& info, QWidget* parent = nullptr);
    /// Changed (or other-type) key: warns; `message` is the remote library's full explanation.
    static HostKeyDialog* changedKeyWarning(const QString& message, QWidget* parent = nullptr);

    bool isWarning() const { return warning_; }
    QString fingerprintText() const;
    QLabel* messageLabel() const { return message_; }
    QPushButton* trustButton() const { return trust_; }  // null for a warning

private:
    HostKeyDialog(QWidget* parent, bool warning);
    QLabel* message_ = nullptr;
    QLabel* fingerprint_ = nullptr;
    QPushButton* trust_ = nullptr;
    bool warning_ = false;
};

}  // namespace npuwb::ui
