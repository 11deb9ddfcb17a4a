#include "dialogs/HostKeyDialog.h"

#include <QDialogButtonBox>
#include <QFontDatabase>
#include <QGridLayout>
#include <QLabel>
#include <QPushButton>
#include <QStyle>
#include <QVBoxLayout>

namespace npuwb::ui {

namespace {
QLabel* selectable(const QString& text, QWidget* parent) {
    auto* label = new QLabel(text, parent);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    return label;
}
}  // namespace

HostKeyDialog::HostKeyDialog(QWidget* parent, bool warning) : QDialog(parent), warning_(warning) {
    setObjectName(warning ? QStringLiteral("hostKeyChangedDialog") : QStringLiteral("hostKeyDialog"));
    setModal(true);
}

HostKeyDialog::HostKeyDialog(const remote::HostKeyInfo& info, QWidget* parent) : HostKeyDialog(parent, false) {
    setWindowTitle(tr("Unknown board host key"));
    const QString host = QString::fromStdString(info.host);
    message_ = new QLabel(tr("<b>%1</b> is not in your known hosts (%2).<br>Compare the fingerprint below with the "
                             "one the board prints for<br><tt>ssh-keygen -lf /etc/ssh/ssh_host_%3_key.pub</tt> before "
                             "trusting it.")
                              .arg(host.toHtmlEscaped(),
                                   QString::fromStdString(info.knownHostsPath).toHtmlEscaped(),
                                   QString::fromStdString(info.keyType).remove(QStringLiteral("ssh-")).toHtmlEscaped()),
                          this);
    message_->setWordWrap(true);
    auto* grid = new QGridLayout;
    grid->addWidget(new QLabel(tr("Host:"), this), 0, 0);
    grid->addWidget(selectable(host, this), 0, 1);
    grid->addWidget(new QLabel(tr("Key type:"), this), 1, 0);
    grid->addWidget(selectable(QString::fromStdString(info.keyType), this), 1, 1);
    grid->addWidget(new QLabel(tr("Fingerprint:"), this), 2, 0);
    fingerprint_ = selectable(QString::fromStdString(info.fingerprint), this);
    fingerprint_->setObjectName(QStringLiteral("fingerprintLabel"));
    fingerprint_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    grid->addWidget(fingerprint_, 2, 1);

    auto* buttons = new QDialogButtonBox(this);
    trust_ = buttons->addButton(tr("&Trust and Connect"), QDialogButtonBox::AcceptRole);
    trust_->setObjectName(QStringLiteral("trustButton"));
    QPushButton* reject = buttons->addButton(tr("&Reject"), QDialogButtonBox::RejectRole);
    reject->setDefault(true);  // Enter must not trust a key by accident
    reject->setFocus();
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(message_);
    layout->addLayout(grid);
    layout->addWidget(buttons);
}

HostKeyDialog* HostKeyDialog::changedKeyWarning(const QString& message, QWidget* parent) {
    auto* d = new HostKeyDialog(parent, true);
    d->setWindowTitle(tr("Board host key has CHANGED"));
    auto* icon = new QLabel(d);
    icon->setPixmap(d->style()->standardIcon(QStyle::SP_MessageBoxCritical).pixmap(48, 48));
    d->message_ = new QLabel(tr("<b>WARNING: the board's identity has changed. The connection was refused.</b>"
                                "<br><br>%1")
                                 .arg(message.toHtmlEscaped()),
                             d);
    d->message_->setWordWrap(true);
    d->message_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    d->message_->setMinimumWidth(520);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, d);  // no way to accept from here
    connect(buttons, &QDialogButtonBox::rejected, d, &QDialog::reject);
    auto* row = new QHBoxLayout;
    row->addWidget(icon, 0, Qt::AlignTop);
    row->addWidget(d->message_, 1);
    auto* layout = new QVBoxLayout(d);
    layout->addLayout(row);
    layout->addWidget(buttons);
    return d;
}

QString HostKeyDialog::fingerprintText() const {
    return fingerprint_ ? fingerprint_->text() : QString();
}

}  // namespace npuwb::ui
