#include "dialogs/ConnectionDialog.h"

#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QToolButton>
#include <QVBoxLayout>

namespace npuwb::ui {

ConnectionDialog::ConnectionDialog(const BoardEntry& entry, QList<BoardEntry> others, QWidget* parent)
    : QDialog(parent), others_(std::move(others)), name_(new QLineEdit(entry.name, this)),
      host_(new QLineEdit(QString::fromStdString(entry.connection.host), this)),
      remoteDir_(new QLineEdit(QString::fromStdString(entry.connection.remoteDir), this)), timeout_(new QSpinBox(this)),
      problem_(new QLabel(this)),
      buttons_(new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this)) {
    setObjectName(QStringLiteral("connectionDialog"));
    const remote::BoardOptions& c = entry.connection;
    setWindowTitle(c.host.empty() ? tr("Add Board") : tr("Edit Board"));
    name_->setPlaceholderText(tr("rock5b"));
    host_->setPlaceholderText(tr("[user@]host[:port] or an ssh config alias"));
    auto* form = new QFormLayout;
    form->addRow(tr("&Name:"), name_);
    form->addRow(tr("&Host:"), host_);
    identity_ = fileRow(form, tr("&Identity file:"),
                        c.identityFiles.empty() ? QString() : QString::fromStdString(c.identityFiles.front()),
                        tr("ssh-agent, ssh config and ~/.ssh/id_*"));
    knownHosts_ =
        fileRow(form, tr("&Known hosts:"), QString::fromStdString(c.knownHostsPath), tr("~/.ssh/known_hosts"));
    sshConfig_ = fileRow(form, tr("SSH &config:"), QString::fromStdString(c.sshConfigPath), tr("~/.ssh/config"));
    remoteDir_->setPlaceholderText(tr("~/.cache/npuwb"));
    remoteDir_->setToolTip(tr("Folder on the board for the agent and uploaded models"));
    form->addRow(tr("Board &cache:"), remoteDir_);
    timeout_->setRange(1, 3600);
    timeout_->setSuffix(tr(" s"));
    timeout_->setValue(c.timeoutSec);
    timeout_->setToolTip(tr("Connect and I/O timeout: a board silent this long counts as lost"));
    form->addRow(tr("&Timeout:"), timeout_);
    problem_->setObjectName(QStringLiteral("problemLabel"));
    problem_->setStyleSheet(QStringLiteral("color: #b00020"));
    problem_->setWordWrap(true);
    connect(buttons_, &QDialogButtonBox::accepted, this, [this] {
        if (canAccept()) accept();
    });
    connect(buttons_, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(name_, &QLineEdit::textChanged, this, &ConnectionDialog::revalidate);
    connect(host_, &QLineEdit::textChanged, this, &ConnectionDialog::revalidate);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(problem_);
    layout->addWidget(buttons_);
    setMinimumWidth(520);
    revalidate();
}

QLineEdit* ConnectionDialog::fileRow(QFormLayout* form, const QString& label, const QString& value,
                                     const QString& placeholder) {
    auto* edit = new QLineEdit(value, this);
    edit->setPlaceholderText(placeholder);
    auto* browse = new QToolButton(this);
    browse->setText(QStringLiteral("…"));
    connect(browse, &QToolButton::clicked, this, [this, edit, label] {
        const QString start = edit->text().isEmpty() ? QDir::homePath() + QStringLiteral("/.ssh") : edit->text();
        const QString path = QFileDialog::getOpenFileName(this, QString(label).remove(QLatin1Char('&')).remove(QLatin1Char(':')), start,
                                                          QString(), nullptr, QFileDialog::DontUseNativeDialog |
                                                                                   QFileDialog::DontResolveSymlinks);
        if (!path.isEmpty()) edit->setText(path);
    });
    auto* row = new QHBoxLayout;
    row->addWidget(edit, 1);
    row->addWidget(browse);
    // addRow(QString, QLayout*) makes a label without a buddy, which shows the '&' literally: give it the edit.
    auto* title = new QLabel(label, this);
    title->setBuddy(edit);
    form->addRow(title, row);
    return edit;
}

BoardEntry ConnectionDialog::entry() const {
    BoardEntry e;
    e.name = name_->text().trimmed();
    remote::BoardOptions& c = e.connection;
    c.host = host_->text().trimmed().toStdString();
    if (const QString identity = identity_->text().trimmed(); !identity.isEmpty())
        c.identityFiles = {identity.toStdString()};
    c.knownHostsPath = knownHosts_->text().trimmed().toStdString();
    c.sshConfigPath = sshConfig_->text().trimmed().toStdString();
    c.remoteDir = remoteDir_->text().trimmed().toStdString();
    c.timeoutSec = timeout_->value();
    return e;
}

bool ConnectionDialog::canAccept() const {
    return validateBoard(entry(), others_).isEmpty();
}

void ConnectionDialog::revalidate() {
    const QString problem = validateBoard(entry(), others_);
    problem_->setText(problem);
    buttons_->button(QDialogButtonBox::Ok)->setEnabled(problem.isEmpty());
}

}  // namespace npuwb::ui
