#include "views/matmul/MatmulView.h"

#include <QAction>
#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QRegularExpression>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QSplitter>
#include <QStandardItemModel>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>
#include <exception>

#include "core/ViewRegistry.h"
#include "core/Workbench.h"
#include "dialogs/BoardQuestionDialogs.h"
#include "dialogs/HostKeyDialog.h"
#include "jobs/BoardMatmulJob.h"
#include "jobs/BoardPrompter.h"
#include "jobs/MatmulBenchJob.h"
#include "models/Format.h"
#include "models/MatmulBenchModel.h"
#include "npuwb/ChipProfile.h"
#include "npuwb/Error.h"
#include "npuwb/sdk/ModelRuntime.h"
#include "views/matmul/MatmulChart.h"
#include "views/matmul/MatmulRunOn.h"

namespace npuwb::ui {

NPUWB_GUI_VIEW(MatmulView, "matmul", QT_TRANSLATE_NOOP("views", "&Matmul"), Qt::ALT | Qt::Key_7, 70);

namespace {

// "1,64,256" -> {1, 64, 256}; a word that is not a positive number becomes a problem naming the field.
std::vector<int64_t> parseSizes(const QString& field, const QString& text, QStringList* problems) {
    std::vector<int64_t> values;
    for (const QString& word : text.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        bool ok = false;
        const qlonglong value = word.trimmed().toLongLong(&ok);
        if (!ok || value < 1)
            problems->append(MatmulView::tr("%1: '%2' is not a positive whole number").arg(field, word.trimmed()));
        else
            values.push_back(value);
    }
    return values;
}

// Profiles are small JSON files, read once when the view is made; chips without a matmul API and broken profiles
// are left out of the list.
std::map<QString, ChipProfile> matmulChips() {
    std::map<QString, ChipProfile> chips;
    for (const std::string& name : availableChipProfiles()) {
        try {
            ChipProfile chip = findChipProfile(name);
            if (chip.matmul) chips.emplace(QString::fromStdString(name), std::move(chip));
        } catch (const std::exception&) {
        }
    }
    return chips;
}

}  // namespace

MatmulView::MatmulView(Workbench& workbench, QWidget* parent)
    : WorkbenchView(workbench, parent), questions_(std::make_shared<BoardQuestionDialogs>(this)),
      job_(new MatmulBenchJob(this)), boardJob_(new BoardMatmulJob(questions_, this)),
      runAction_(new QAction(tr("Run &Matmul Benchmark"), this)), chip_(new QComboBox(this)),
      type_(new QComboBox(this)), bLayout_(new QComboBox(this)), acLayout_(new QComboBox(this)),
      m_(new QLineEdit(QStringLiteral("1,64,256"), this)), k_(new QLineEdit(QStringLiteral("1024"), this)),
      n_(new QLineEdit(QStringLiteral("1024"), this)), runs_(new QSpinBox(this)),
      runOn_(new MatmulRunOn(workbench.boards(), this)), run_(new QPushButton(tr("&Run"), this)),
      cancel_(new QPushButton(tr("Cancel"), this)), clearChart_(new QPushButton(tr("Clear chart"), this)),
      progress_(new QProgressBar(this)), problemsLabel_(new QLabel(this)), layouts_(new QLabel(this)),
      summary_(new QLabel(this)), chart_(new MatmulChart(this)), model_(new MatmulBenchModel(this)),
      table_(new QTableView(this)), chips_(matmulChips()) {
    for (const auto& [file, chip] : chips_) chip_->addItem(QString::fromStdString(chip.name), file);
    const int targetChip = chip_->findData(workbench.target().chip, Qt::UserRole, Qt::MatchFixedString);
    if (targetChip >= 0) chip_->setCurrentIndex(targetChip);
    for (const MatmulTypeInfo& info : kMatmulTypes) {
        const std::string shortName = matmulTypeShortName(info.type);
        const QString label = QString::fromLatin1(info.name.data(), qsizetype(info.name.size())) +
                              (shortName.empty() ? QString() : QStringLiteral(" (%1)").arg(QString::fromStdString(shortName)));
        type_->addItem(label, QString::fromLatin1(info.name.data(), qsizetype(info.name.size())));
    }
    type_->setCurrentIndex(type_->findData(QStringLiteral("int8xint8->int32")));
    for (MatmulLayout layout : {MatmulLayout::Native, MatmulLayout::Norm, MatmulLayout::TpNorm})
        bLayout_->addItem(QString::fromLatin1(matmulLayoutName(layout)), int(layout));
    for (MatmulLayout layout : {MatmulLayout::Norm, MatmulLayout::Native})
        acLayout_->addItem(QString::fromLatin1(matmulLayoutName(layout)), int(layout));
    runs_->setRange(1, 1000);
    runs_->setValue(5);
    m_->setToolTip(tr("Several M are one context with dynamic shapes, buffers sized for the largest"));

    auto* form = new QFormLayout;
    auto* sizes = new QHBoxLayout;
    const std::pair<QString, QLineEdit*> sizeFields[] = {{QStringLiteral("M"), m_}, {QStringLiteral("K"), k_}, {QStringLiteral("N"), n_}};
    for (const auto& [label, edit] : sizeFields) {
        sizes->addWidget(new QLabel(label, this));
        sizes->addWidget(edit, 1);
    }
    sizes->addWidget(new QLabel(tr("Runs"), this));
    sizes->addWidget(runs_);
    auto* choices = new QHBoxLayout;
    choices->addWidget(chip_);
    choices->addWidget(type_, 1);
    choices->addWidget(new QLabel(tr("B layout"), this));
    choices->addWidget(bLayout_);
    choices->addWidget(new QLabel(tr("A/C layout"), this));
    choices->addWidget(acLayout_);
    form->addRow(tr("Chip, type"), choices);
    form->addRow(tr("Sizes"), sizes);
    form->addRow(tr("Run on"), runOn_);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(run_);
    buttons->addWidget(cancel_);
    buttons->addWidget(progress_, 1);
    buttons->addWidget(clearChart_);
    problemsLabel_->setObjectName(QStringLiteral("matmulProblems"));
    problemsLabel_->setStyleSheet(QStringLiteral("color: #b00020"));
    problemsLabel_->setWordWrap(true);
    problemsLabel_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layouts_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layouts_->setWordWrap(true);
    summary_->setTextFormat(Qt::RichText);
    summary_->setWordWrap(true);
    table_->setModel(model_);
    table_->verticalHeader()->hide();
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    for (int column = 0; column < MatmulBenchModel::ColumnCount; ++column)  // until a board's sweep is shown
        table_->setColumnHidden(column, MatmulBenchModel::isBoardColumn(column));
    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(chart_);
    splitter->addWidget(table_);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    splitter->setSizes({600, 250});  // the chart first: a sweep is a handful of rows
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(form);
    layout->addWidget(problemsLabel_);
    layout->addWidget(layouts_);
    layout->addLayout(buttons);
    layout->addWidget(summary_);
    layout->addWidget(splitter, 1);
    progress_->setVisible(false);
    cancel_->setEnabled(false);

    runAction_->setToolTip(tr("Benchmark the Matmul tab's sweep on the CPU or a board's NPU, next to the chip's NPU "
                              "estimate"));
    connect(runAction_, &QAction::triggered, this, &MatmulView::startBench);
    connect(run_, &QPushButton::clicked, this, &MatmulView::startBench);
    connect(cancel_, &QPushButton::clicked, this, &MatmulView::cancelBench);
    connect(clearChart_, &QPushButton::clicked, chart_, &MatmulChart::clear);
    for (QComboBox* combo : {chip_, type_, bLayout_, acLayout_})
        connect(combo, &QComboBox::currentIndexChanged, this, &MatmulView::updateForm);
    connect(chip_, &QComboBox::currentIndexChanged, this, &MatmulView::fillTypes);
    for (QLineEdit* edit : {m_, k_, n_}) connect(edit, &QLineEdit::textChanged, this, &MatmulView::updateForm);
    connect(runs_, &QSpinBox::valueChanged, this, &MatmulView::updateForm);
    connect(runOn_, &MatmulRunOn::changed, this, &MatmulView::updateForm);
    // "As the toolbars": the chip and Run on follow the Chip and Run toolbars until the user picks here.
    connect(chip_, &QComboBox::activated, this, [this] { runOn_->setFollows(false); });
    connect(runOn_, &MatmulRunOn::followChanged, this, &MatmulView::followToolbars);
    connect(&workbench, &Workbench::targetChanged, this, &MatmulView::followToolbars);
    connect(&workbench, &Workbench::runBoardChanged, this, &MatmulView::followToolbars);
    workbench.trackJob(job_);
    workbench.trackJob(boardJob_);
    connect(&workbench, &Workbench::stateChanged, this, &MatmulView::updateForm);
    connect(job_, &MatmulBenchJob::progress, this, [this](int done, int total) {
        progress_->setRange(0, total);
        progress_->setValue(done);
    });
    connect(job_, &MatmulBenchJob::finished, this, &MatmulView::onFinished);
    connect(job_, &MatmulBenchJob::cancelled, this, [this] {
        onEnded();
        this->workbench().setStatus(tr("Matmul benchmark cancelled"));
    });
    connect(job_, &MatmulBenchJob::failed, this, [this](const QString& message) { onFailed(message, false); });
    connect(boardJob_, &BoardMatmulJob::stage, this, &MatmulView::showStage);
    connect(boardJob_, &BoardMatmulJob::progress, this, [this](int done, int total) {
        progress_->setRange(0, total);
        progress_->setValue(done);
        progress_->setFormat(tr("%v / %m points"));
    });
    connect(boardJob_, &BoardMatmulJob::finished, this, &MatmulView::onFinished);
    connect(boardJob_, &BoardMatmulJob::cancelled, this, [this] {
        onEnded();
        this->workbench().setStatus(tr("Matmul benchmark on %1 cancelled").arg(runOn_->targetName()));
    });
    connect(boardJob_, &BoardMatmulJob::failed, this, &MatmulView::onFailed);
    connect(boardJob_->prompter(), &BoardPrompter::keychainMessage, this,
            [this](const QString& message) { this->workbench().showMessage(message); });
    summary_->setText(tr("Specify a sweep and press Run: each point runs on this CPU (the fastest matmul kernel of "
                         "the built backends) or, Run on a saved board, on its NPU through the agent, next to the "
                         "cost model's estimate for the chip's NPU."));
    fillTypes();
    followToolbars();
    updateForm();
}

void MatmulView::followToolbars() {
    if (!runOn_->follows()) return;
    const int chip = chip_->findData(workbench().target().chip, Qt::UserRole, Qt::MatchFixedString);
    if (chip >= 0) chip_->setCurrentIndex(chip);  // a chip without a matmul API keeps the view's
    runOn_->followRunTarget(workbench().runBoard());
}

QList<ViewAction> MatmulView::viewActions() const {
    return {{.action = runAction_, .menu = MenuSlot::Analyze}};
}

void MatmulView::saveSettings(QSettings& settings) const {
    settings.setValue(QStringLiteral("chip"), chip_->currentData());
    settings.setValue(QStringLiteral("type"), type_->currentData());
    settings.setValue(QStringLiteral("bLayout"), bLayout_->currentText());
    settings.setValue(QStringLiteral("acLayout"), acLayout_->currentText());
    settings.setValue(QStringLiteral("M"), m_->text());
    settings.setValue(QStringLiteral("K"), k_->text());
    settings.setValue(QStringLiteral("N"), n_->text());
    settings.setValue(QStringLiteral("runs"), runs_->value());
    runOn_->save(settings);
}

void MatmulView::restoreSettings(QSettings& settings) {
    auto select = [](QComboBox* combo, const QVariant& value, bool byData) {
        const int index = byData ? combo->findData(value) : combo->findText(value.toString());
        if (index >= 0) combo->setCurrentIndex(index);
    };
    select(chip_, settings.value(QStringLiteral("chip")), true);
    select(type_, settings.value(QStringLiteral("type")), true);
    select(bLayout_, settings.value(QStringLiteral("bLayout")), false);
    select(acLayout_, settings.value(QStringLiteral("acLayout")), false);
    m_->setText(settings.value(QStringLiteral("M"), m_->text()).toString());
    k_->setText(settings.value(QStringLiteral("K"), k_->text()).toString());
    n_->setText(settings.value(QStringLiteral("N"), n_->text()).toString());
    runs_->setValue(settings.value(QStringLiteral("runs"), runs_->value()).toInt());
    runOn_->restore(settings);
    followToolbars();
}

bool MatmulView::setRunOn(const QString& target, const QString& coreMask) {
    runOn_->setFollows(false);  // an explicit choice, as picking it in the form
    return runOn_->select(target, coreMask);
}

bool MatmulView::isRunning() const {
    return job_->isRunning() || boardJob_->isRunning();
}

bool MatmulView::startFromCommandLine() {
    startBench();
    return job_->isRunning();
}

bool MatmulView::setForm(const QString& chip, const QString& type, const QString& bLayout, const QString& m,
                         const QString& k, const QString& n) {
    const int chipIndex = chip_->findData(chip, Qt::UserRole, Qt::MatchFixedString);
    int typeIndex = -1;
    try {
        const MatmulTypeInfo& info = matmulTypeInfo(parseMatmulType(type.toStdString()));
        typeIndex = type_->findData(QString::fromLatin1(info.name.data(), qsizetype(info.name.size())));
    } catch (const std::exception&) {
    }
    const int layoutIndex = bLayout_->findText(bLayout);
    if (chipIndex < 0 || typeIndex < 0 || layoutIndex < 0) return false;
    chip_->setCurrentIndex(chipIndex);
    type_->setCurrentIndex(typeIndex);
    bLayout_->setCurrentIndex(layoutIndex);
    m_->setText(m);
    k_->setText(k);
    n_->setText(n);
    return true;
}

// Types the chip's matmul API lacks stay in the list (so a saved choice survives) but cannot be picked.
void MatmulView::fillTypes() {
    const ChipProfile* chip = currentChip();
    const std::vector<std::string> supported = chip ? chip->matmul->types : std::vector<std::string>{};
    auto* items = qobject_cast<QStandardItemModel*>(type_->model());
    for (int row = 0; items && row < type_->count(); ++row) {
        const std::string name = type_->itemData(row).toString().toStdString();
        items->item(row)->setEnabled(std::find(supported.begin(), supported.end(), name) != supported.end());
    }
}

const ChipProfile* MatmulView::currentChip() const {
    const auto found = chips_.find(chip_->currentData().toString());
    return found == chips_.end() ? nullptr : &found->second;
}

MatmulBenchOptions MatmulView::options(QStringList* problems) const {
    MatmulBenchOptions options;
    options.type = parseMatmulType(type_->currentData().toString().toStdString());
    options.bLayout = MatmulLayout(bLayout_->currentData().toInt());
    options.acLayout = MatmulLayout(acLayout_->currentData().toInt());
    options.mValues = parseSizes(QStringLiteral("M"), m_->text(), problems);
    options.kValues = parseSizes(QStringLiteral("K"), k_->text(), problems);
    options.nValues = parseSizes(QStringLiteral("N"), n_->text(), problems);
    options.runs = runs_->value();
    return options;
}

void MatmulView::updateForm() {
    problems_.clear();
    layouts_->clear();
    try {
        if (!currentChip()) failInput("no chip profile with a matmul API was found");
        const ChipProfile& chip = *currentChip();
        const MatmulBenchOptions sweep = options(&problems_);
        if (problems_.isEmpty()) {
            for (const std::string& problem : matmulBenchProblems(chip, sweep)) problems_ << QString::fromStdString(problem);
            const MatmulNativeLayout native = matmulNativeLayout(sweep.type, chip);
            const int64_t M = *std::max_element(sweep.mValues.begin(), sweep.mValues.end());
            const int64_t K = *std::max_element(sweep.kValues.begin(), sweep.kValues.end());
            const int64_t N = *std::max_element(sweep.nValues.begin(), sweep.nValues.end());
            auto text = [&](MatmulOperand operand) {
                return QString::fromStdString(matmulLayoutText(operand, MatmulLayout::Native, M, K, N, native));
            };
            layouts_->setText(tr("Native layouts on %1 at M=%2 K=%3 N=%4:  A %5   B %6   C %7")
                                  .arg(QString::fromStdString(chip.name))
                                  .arg(M).arg(K).arg(N)
                                  .arg(text(MatmulOperand::A), text(MatmulOperand::B), text(MatmulOperand::C)));
        }
    } catch (const std::exception& e) {
        problems_ << QString::fromUtf8(e.what());
    }
    problemsLabel_->setText(problems_.join(QLatin1Char('\n')));
    problemsLabel_->setVisible(!problems_.isEmpty());
    const bool canRun = problems_.isEmpty() && !isRunning() && !workbench().isBusy();
    run_->setEnabled(canRun);
    runAction_->setEnabled(canRun);
    cancel_->setEnabled(isRunning());
    runOn_->setRunning(isRunning());
}

void MatmulView::startBench() {
    updateForm();
    if (!run_->isEnabled()) return;
    QStringList ignored;
    const MatmulBenchOptions sweep = options(&ignored);
    progress_->setRange(0, 0);
    progress_->setFormat(QStringLiteral("%p%"));
    progress_->setVisible(true);
    const std::optional<BoardEntry> board = runOn_->board();
    if (!board) {
        workbench().setStatus(tr("Matmul benchmark on the CPU for %1 …").arg(chip_->currentText()));
        job_->start(chip_->currentData().toString(), sweep);
    } else {
        MatmulBenchOptions onBoard = sweep;
        onBoard.coreMask = runOn_->coreMask();
        onBoard.npuCores = MatmulRunOn::coresOf(onBoard.coreMask, *currentChip());
        workbench().setStatus(
            tr("Matmul benchmark on %1's NPU for %2 …").arg(board->name, chip_->currentText()));
        boardJob_->start(*board, chip_->currentData().toString(), onBoard, runOn_->timeLimitSeconds());
    }
    updateForm();
}

void MatmulView::cancelBench() {
    job_->cancel();
    boardJob_->cancel();
}

void MatmulView::onEnded() {
    progress_->setVisible(false);
    updateForm();
}

void MatmulView::showStage(const QString& text, qint64 done, qint64 total) {
    workbench().setStatus(text);
    progress_->setFormat(text.section(QStringLiteral(": "), 1));  // the board's name is in the Run on box
    progress_->setRange(0, total > 0 ? 1000 : 0);
    progress_->setValue(total > 0 ? int(1000 * done / total) : 0);
}

void MatmulView::onFailed(const QString& message, bool hostKeyChanged) {
    onEnded();
    summary_->setText(QStringLiteral("<span style=\"color:#b00020\">%1</span>")
                          .arg(tr("The sweep failed: %1").arg(message.toHtmlEscaped())));
    if (!hostKeyChanged) return workbench().reportError(tr("Matmul benchmark failed"), message);
    workbench().setStatus(tr("Matmul benchmark refused: the board's host key has changed"));
    auto* warning = HostKeyDialog::changedKeyWarning(message, this);
    warning->setAttribute(Qt::WA_DeleteOnClose);
    warning->open();
    workbench().reportFailure(tr("Host key changed") + QLatin1Char('\n') + message);
}

void MatmulView::onFinished(std::shared_ptr<const MatmulBenchResult> result) {
    onEnded();
    model_->setResult(result);
    chart_->addResult(*result);
    double best = 0;
    for (const MatmulBenchPoint& point : result->points) best = std::max(best, point.gops);
    const MatmulTypeInfo& info = matmulTypeInfo(result->type);
    const QString chip = QString::fromStdString(result->chip);
    const QString type = QString::fromLatin1(info.name.data(), qsizetype(info.name.size()));
    if (model_->measuredOnBoard())
        summary_->setText(tr("<b>%1</b> %2 on the NPU of <b>%3</b> (core mask %4): best <b>%5 GOP/s</b> measured; "
                             "the chip's peak for the type is <b>%6 GOP/s</b> on %7 NPU core(s); est/meas "
                             "is the estimate's time over the measured one")
                              .arg(chip, type, QString::fromStdString(result->measuredOn).toHtmlEscaped(),
                                   QString::fromLatin1(coreMaskName(result->coreMask)))
                              .arg(best, 0, 'f', 1)
                              .arg(result->peakGops, 0, 'f', 0)
                              .arg(result->npuCores));
    else
        summary_->setText(tr("<b>%1</b> %2 on %3 thread(s): best <b>%4 GOP/s</b> on the CPU; the chip's peak for the "
                             "type is <b>%5 GOP/s</b> on %6 NPU core(s)")
                              .arg(chip, type)
                              .arg(result->threads)
                              .arg(best, 0, 'f', 1)
                              .arg(result->peakGops, 0, 'f', 0)
                              .arg(result->npuCores));
    for (int column = 0; column < MatmulBenchModel::ColumnCount; ++column)
        if (MatmulBenchModel::isBoardColumn(column)) table_->setColumnHidden(column, !model_->measuredOnBoard());
    workbench().setStatus(summary_->text().remove(QRegularExpression(QStringLiteral("<[^>]*>"))));
    emit benchShown(result);
    emit resultShown();
}

}  // namespace npuwb::ui
