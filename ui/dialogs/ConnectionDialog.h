#pragma once
// Adds or edits one saved board: name, [user@]host[:port] or ssh config alias, identity file, known_hosts file,
// ssh config and timeout. OK is enabled only for an entry that can be saved (validateBoard).
#include <QDialog>

#include "models/BoardSettings.h"

class QDialogButtonBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace npuwb::ui {

class ConnectionDialog : public QDialog {
    Q_OBJECT
public:
    /// `others`: the other saved boards (names must be unique).
    ConnectionDialog(const BoardEntry& entry, QList<BoardEntry> others, QWidget* parent = nullptr);

    BoardEntry entry() const;
    QLineEdit* nameEdit() const { return name_; }
    QLineEdit* hostEdit() const { return host_; }
    QLabel* problemLabel() const { return problem_; }
    bool canAccept() const;

private:
    QLineEdit* fileRow(QFormLayout* form, const QString& label, const QString& value, const QString& placeholder);
    void revalidate();

    QList<BoardEntry> others_;
    QLineEdit* name_;
    QLineEdit* host_;
    QLineEdit* identity_ = nullptr;
    QLineEdit* knownHosts_ = nullptr;
    QLineEdit* sshConfig_ = nullptr;
    QLineEdit* remoteDir_;
    QSpinBox* timeout_;
    QLabel* problem_;
    QDialogButtonBox* buttons_;
};

}  // namespace npuwb::ui
