#include "dialogs/SecretDialog.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QLabel>
#include <QLineEdit>
#include <QVBoxLayout>

namespace npuwb::ui {

SecretDialog::SecretDialog(const QString& kind, const QString& board, const QString& prompt, QWidget* parent)
    : QDialog(parent), edit_(new QLineEdit(this)), remember_(new QCheckBox(tr("&Remember in keychain"), this)) {
    setObjectName(QStringLiteral("secretDialog"));
    const bool passphrase = kind == QLatin1String("passphrase");
    setWindowTitle(passphrase ? tr("Key passphrase for %1").arg(board) : tr("Password for %1").arg(board));
    setModal(true);
    auto* label = new QLabel(prompt.trimmed().isEmpty() ? (passphrase ? tr("Passphrase:") : tr("Password:")) : prompt.trimmed(), this);
    label->setWordWrap(true);
    edit_->setEchoMode(QLineEdit::Password);
    edit_->setObjectName(QStringLiteral("secretEdit"));
    remember_->setObjectName(QStringLiteral("rememberBox"));
    remember_->setToolTip(tr("Keep it in the system keychain (service \"npuwb\"), never in a plain file"));
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(label);
    layout->addWidget(edit_);
    layout->addWidget(remember_);
    layout->addWidget(buttons);
}

QString SecretDialog::secret() const { return edit_->text(); }

bool SecretDialog::remember() const { return remember_->isChecked(); }

}  // namespace npuwb::ui
