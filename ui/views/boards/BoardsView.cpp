#include "views/boards/BoardsView.h"

#include <QAbstractButton>
#include <QAction>
#include <QHeaderView>
#include <QLabel>
#include <QMessageBox>
#include <QProgressBar>
#include <QSplitter>
#include <QTableView>
#include <QToolBar>
#include <QTreeView>
#include <QVBoxLayout>

#include "core/ViewRegistry.h"
#include "core/Workbench.h"
#include "dialogs/BoardQuestionDialogs.h"
#include "dialogs/ConnectionDialog.h"
#include "dialogs/HostKeyDialog.h"
#include "jobs/BoardJob.h"
#include "jobs/BoardPrompter.h"
#include "models/BoardListModel.h"
#include "models/Format.h"
#include "models/ProbeInfoModel.h"

namespace npuwb::ui {

namespace {
// One line for the board table: "aarch64 · Radxa ROCK 5B · NPU driver 0.9.6".
QString probeSummary(const nlohmann::json& p) {
    QStringList parts;
    auto add = [&parts](const nlohmann::json& v, const QString& prefix = {}) {
        if (v.is_string() && !v.get<std::string>().empty()) parts << prefix + QString::fromStdString(v.get<std::string>());
    };
    add(p.value("arch", nlohmann::json()));
    add(p.value("board", nlohmann::json()));
    const nlohmann::json npu = p.value("npu", nlohmann::json::object());
    if (npu.is_object() && npu.contains("driver") && npu["driver"].is_object())
        add(npu["driver"].value("version", nlohmann::json()), QObject::tr("NPU driver "));
    return parts.join(QStringLiteral(" · "));
}
}  // namespace

NPUWB_GUI_VIEW(BoardsView, "boards", QT_TRANSLATE_NOOP("views", "&Boards"), Qt::ALT | Qt::Key_5, 50);

BoardsView::BoardsView(Workbench& workbench, QWidget* parent)
    : WorkbenchView(workbench, parent), model_(workbench.boards()), probe_(new ProbeInfoModel(this)),
      questions_(std::make_shared<BoardQuestionDialogs>(this)), job_(new BoardJob(questions_, this)), table_(new QTableView(this)), probeView_(new QTreeView(this)),
      probeTitle_(new QLabel(this)), status_(new QLabel(this)), progress_(new QProgressBar(this)) {
    setObjectName(QStringLiteral("boardsView"));
    auto* bar = new QToolBar(tr("Boards"), this);
    bar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    addAction_ = bar->addAction(QIcon::fromTheme(QStringLiteral("list-add")), tr("&Add…"), this, &BoardsView::addBoard);
    editAction_ = bar->addAction(QIcon::fromTheme(QStringLiteral("document-edit")), tr("&Edit…"), this, &BoardsView::editBoard);
    removeAction_ = bar->addAction(QIcon::fromTheme(QStringLiteral("list-remove")), tr("Re&move"), this,
                                   &BoardsView::removeBoard);
    bar->addSeparator();
    testAction_ = bar->addAction(QIcon::fromTheme(QStringLiteral("network-connect")), tr("&Test Connection"), this,
                                 &BoardsView::testConnection);
    testAction_->setToolTip(tr("Connect, check the host key, read uname, and probe the board if the agent is there"));
    deployAction_ = bar->addAction(QIcon::fromTheme(QStringLiteral("go-up")), tr("&Deploy Agent"), this,
                                   &BoardsView::deployAgent);
    deployAction_->setToolTip(tr("Upload npuwb-agent for the board's architecture (only what changed), then probe"));
    cancelAction_ = bar->addAction(QIcon::fromTheme(QStringLiteral("process-stop")), tr("&Cancel"), this,
                                   &BoardsView::cancel);

    table_->setModel(model_);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->verticalHeader()->hide();
    table_->horizontalHeader()->setStretchLastSection(true);
    table_->setAlternatingRowColors(true);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    connect(table_, &QTableView::doubleClicked, this, &BoardsView::editBoard);
    connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this] {
        showCurrentProbe();
        updateActions();
    });

    probeView_->setModel(probe_);
    probeView_->setUniformRowHeights(true);
    probeView_->setAlternatingRowColors(true);
    probeView_->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    probeTitle_->setObjectName(QStringLiteral("probeTitle"));
    auto* right = new QWidget(this);
    auto* rightLayout = new QVBoxLayout(right);
    rightLayout->setContentsMargins(0, 0, 0, 0);
    rightLayout->addWidget(probeTitle_);
    rightLayout->addWidget(probeView_);
    auto* split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(table_);
    split->addWidget(right);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 1);

    status_->setObjectName(QStringLiteral("boardStatus"));
    status_->setWordWrap(true);
    status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    progress_->setMaximumWidth(260);
    progress_->hide();
    auto* statusRow = new QHBoxLayout;
    statusRow->addWidget(status_, 1);
    statusRow->addWidget(progress_);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(bar);
    layout->addWidget(split, 1);
    layout->addLayout(statusRow);

    connect(job_, &BoardJob::progress, this, &BoardsView::onProgress);
    connect(job_, &BoardJob::finished, this, &BoardsView::onFinished);
    // Host names and statuses vary a lot in length: size the columns to what they hold.
    connect(model_, &QAbstractItemModel::dataChanged, table_, &QTableView::resizeColumnsToContents);
    connect(model_, &QAbstractItemModel::modelReset, table_, &QTableView::resizeColumnsToContents);
    connect(model_, &QAbstractItemModel::rowsInserted, table_, &QTableView::resizeColumnsToContents);
    connect(model_, &BoardListModel::boardsChanged, this, &BoardsView::updateActions);
    connect(job_->prompter(), &BoardPrompter::keychainMessage, this,
            [this](const QString& message) { this->workbench().showMessage(message); });
    if (model_->rowCount() > 0) selectBoard(0);
    updateActions();
    status_->setText(tr("Add a board reachable over SSH ([user@]host[:port] or an ssh config alias), then Test it"));
}

BoardsView::~BoardsView() = default;

int BoardsView::currentRow() const {
    const QModelIndex current = table_->selectionModel()->currentIndex();
    return current.isValid() ? current.row() : -1;
}

void BoardsView::selectBoard(int row) {
    if (row < 0 || row >= model_->rowCount()) return;
    table_->selectionModel()->setCurrentIndex(model_->index(row, 0),
                                              QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
}

bool BoardsView::isBusy() const { return job_->isRunning(); }

void BoardsView::updateActions() {
    const bool busy = job_->isRunning();
    const bool selected = currentRow() >= 0;
    addAction_->setEnabled(!busy);
    editAction_->setEnabled(!busy && selected);
    removeAction_->setEnabled(!busy && selected);
    testAction_->setEnabled(!busy && selected);
    deployAction_->setEnabled(!busy && selected);
    cancelAction_->setEnabled(busy);
}

void BoardsView::addBoard() {
    BoardEntry entry;
    entry.name = tr("board%1").arg(model_->rowCount() + 1);
    auto* dialog = new ConnectionDialog(entry, model_->boards(), this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::accepted, this, [this, dialog] { selectBoard(model_->addBoard(dialog->entry())); });
    dialog->open();
}

void BoardsView::editBoard() {
    const int row = currentRow();
    if (row < 0 || job_->isRunning()) return;
    QList<BoardEntry> others = model_->boards();
    others.removeAt(row);
    auto* dialog = new ConnectionDialog(model_->board(row), others, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    const QString oldName = model_->board(row).name;
    connect(dialog, &QDialog::accepted, this, [this, dialog, oldName] {
        const int at = model_->rowOf(oldName);
        if (at < 0) return;
        if (oldName != dialog->entry().name) probes_.erase(oldName);
        model_->updateBoard(at, dialog->entry());
        showCurrentProbe();
    });
    dialog->open();
}

void BoardsView::removeBoard() {
    const int row = currentRow();
    if (row < 0 || job_->isRunning()) return;
    probes_.erase(model_->board(row).name);
    model_->removeBoard(row);
    showCurrentProbe();
}

void BoardsView::testConnection() {
    const int row = currentRow();
    if (row < 0 || job_->isRunning()) return;
    job_->testConnection(model_->board(row));
    updateActions();
}

void BoardsView::deployAgent() {
    const int row = currentRow();
    if (row < 0 || job_->isRunning()) return;
    job_->deploy(model_->board(row));
    updateActions();
}

void BoardsView::cancel() {
    job_->cancel();
    status_->setText(tr("Cancelling …"));
}

void BoardsView::onProgress(const QString& text, qint64 done, qint64 total) {
    status_->setText(text);
    if (total > 0) {
        progress_->setRange(0, 1000);
        progress_->setValue(static_cast<int>(1000 * done / total));
    } else {
        progress_->setRange(0, 0);
    }
    progress_->show();
}

void BoardsView::showProbe(const QString& boardName, const nlohmann::json& probe) {
    probes_[boardName] = probe;
    const int row = model_->rowOf(boardName);
    if (row >= 0) model_->setStatus(row, probeSummary(probe));
    if (row >= 0 && row != currentRow()) selectBoard(row);
    else showCurrentProbe();
}

void BoardsView::showCurrentProbe() {
    const int row = currentRow();
    const auto it = row >= 0 ? probes_.find(model_->board(row).name) : probes_.end();
    if (it == probes_.end()) {
        probe_->clearAll();
        probeTitle_->setText(row >= 0 ? tr("<b>%1</b>: not probed yet (Test Connection)").arg(model_->board(row).name.toHtmlEscaped())
                                      : QString());
        return;
    }
    probe_->setProbe(it->second);
    probeTitle_->setText(tr("<b>%1</b>: agent probe").arg(it->first.toHtmlEscaped()));
    probeView_->expandAll();
}

void BoardsView::onFinished(std::shared_ptr<const BoardCheck> r) {
    progress_->hide();
    updateActions();
    const int row = model_->rowOf(r->boardName);
    const bool ok = r->error.isEmpty();
    if (r->cancelled) {
        status_->setText(tr("%1: cancelled").arg(r->boardName));
    } else if (!ok) {
        if (row >= 0) model_->setStatus(row, r->hostKeyChanged ? tr("HOST KEY CHANGED: refused") : r->error, false);
        status_->setText(tr("%1: %2").arg(r->boardName, r->error));
        QDialog* box = r->hostKeyChanged
                           ? static_cast<QDialog*>(HostKeyDialog::changedKeyWarning(r->error, this))
                           : new QMessageBox(QMessageBox::Warning, tr("Cannot reach %1").arg(r->boardName), r->error,
                                             QMessageBox::Ok, this);
        box->setAttribute(Qt::WA_DeleteOnClose);
        if (!r->hostKeyChanged) box->setObjectName(QStringLiteral("boardErrorBox"));
        box->open();  // never exec(): no nested event loop
    } else if (r->probe) {
        showProbe(r->boardName, *r->probe);
        status_->setText(r->filesUploaded > 0
                             ? tr("%1 (%2): agent deployed (%3 file(s), %4) and probed in %5 s")
                                   .arg(r->boardName, r->connectedAs)
                                   .arg(r->filesUploaded)
                                   .arg(formatBytes(r->bytesUploaded))
                                   .arg(r->seconds, 0, 'f', 1)
                             : tr("%1 (%2): connected and probed in %3 s").arg(r->boardName, r->connectedAs).arg(r->seconds, 0, 'f', 1));
    } else {
        probes_.erase(r->boardName);
        if (row >= 0) model_->setStatus(row, tr("%1, kernel %2; no agent yet").arg(r->arch, r->kernel));
        if (row == currentRow()) {
            probe_->setBasics(r->connectedAs, r->arch, r->kernel, r->agentNote);
            probeTitle_->setText(tr("<b>%1</b>: connected, no agent").arg(r->boardName.toHtmlEscaped()));
            probeView_->expandAll();
        }
        status_->setText(tr("%1 (%2): connection works (%3 s). %4").arg(r->boardName, r->connectedAs)
                             .arg(r->seconds, 0, 'f', 1).arg(r->agentNote));
        auto* offer = new QMessageBox(QMessageBox::Question, tr("Deploy the agent?"),
                                      tr("%1 answers (%2, kernel %3) but has no npuwb-agent yet.\n\nUpload it now "
                                         "(into ~/.cache/npuwb on the board)?")
                                          .arg(r->boardName, r->arch, r->kernel),
                                      QMessageBox::Yes | QMessageBox::No, this);
        offer->setObjectName(QStringLiteral("offerDeployBox"));
        offer->setAttribute(Qt::WA_DeleteOnClose);
        const QString name = r->boardName;
        connect(offer, &QMessageBox::buttonClicked, this, [this, offer, name](QAbstractButton* button) {
            if (offer->standardButton(button) != QMessageBox::Yes) return;
            selectBoard(model_->rowOf(name));
            deployAgent();
        });
        offer->open();
    }
    workbench().showMessage(status_->text());
    emit checkFinished(ok && !r->cancelled);
}

}  // namespace npuwb::ui
