#include "models/BoardListModel.h"

#include <QBrush>
#include <QColor>
#include <QFileInfo>

namespace npuwb::ui {

BoardListModel::BoardListModel(QObject* parent) : QAbstractTableModel(parent) {}

int BoardListModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(boards_.size());
}

int BoardListModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant BoardListModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= boards_.size() || index.column() >= ColumnCount) return {};
    const BoardEntry& b = boards_[index.row()];
    const Status& s = status_[index.row()];
    const remote::BoardOptions& c = b.connection;
    const QString host = QString::fromStdString(c.host);
    const QString identity = c.identityFiles.empty() ? QString() : QString::fromStdString(c.identityFiles.front());
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
            case NameColumn: return b.name;
            case HostColumn: return host;
            case IdentityColumn: return identity.isEmpty() ? tr("(agent / defaults)") : QFileInfo(identity).fileName();
            case StatusColumn: return s.text.isEmpty() ? tr("not tested") : s.text;
        }
    } else if (role == Qt::ToolTipRole) {
        switch (index.column()) {
            case IdentityColumn: return identity.isEmpty() ? tr("ssh-agent, the ssh config's IdentityFile, ~/.ssh/id_*")
                                                           : identity;
            case StatusColumn: return s.text;
            default:
                return tr("%1: %2, known hosts %3, timeout %4 s")
                    .arg(b.name, host,
                         c.knownHostsPath.empty() ? tr("~/.ssh/known_hosts") : QString::fromStdString(c.knownHostsPath))
                    .arg(c.timeoutSec);
        }
    } else if (role == Qt::ForegroundRole && index.column() == StatusColumn && !s.ok) {
        return QBrush(QColor(0xb0, 0x00, 0x20));
    }
    return {};
}

QVariant BoardListModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
        case NameColumn: return tr("Name");
        case HostColumn: return tr("Host");
        case IdentityColumn: return tr("Identity");
        case StatusColumn: return tr("Status");
    }
    return {};
}

void BoardListModel::setBoards(const QList<BoardEntry>& boards) {
    beginResetModel();
    boards_ = boards;
    status_ = QList<Status>(boards.size());
    endResetModel();
    emit boardsChanged();
}

int BoardListModel::rowOf(const QString& name) const {
    for (int i = 0; i < boards_.size(); ++i)
        if (boards_[i].name == name) return i;
    return -1;
}

int BoardListModel::addBoard(const BoardEntry& board) {
    const int row = static_cast<int>(boards_.size());
    beginInsertRows({}, row, row);
    boards_.append(board);
    status_.append(Status{});
    endInsertRows();
    emit boardsChanged();
    return row;
}

void BoardListModel::updateBoard(int row, const BoardEntry& board) {
    if (row < 0 || row >= boards_.size()) return;
    const remote::BoardOptions &was = boards_[row].connection, &now = board.connection;
    const bool moved = was.host != now.host || was.identityFiles != now.identityFiles;
    boards_[row] = board;
    if (moved) status_[row] = Status{};  // what was found there may not hold for the new address
    emit dataChanged(index(row, 0), index(row, ColumnCount - 1));
    emit boardsChanged();
}

void BoardListModel::removeBoard(int row) {
    if (row < 0 || row >= boards_.size()) return;
    beginRemoveRows({}, row, row);
    boards_.removeAt(row);
    status_.removeAt(row);
    endRemoveRows();
    emit boardsChanged();
}

void BoardListModel::setStatus(int row, const QString& status, bool ok) {
    if (row < 0 || row >= boards_.size()) return;
    status_[row] = Status{status, ok};
    emit dataChanged(index(row, StatusColumn), index(row, StatusColumn));
}

QString BoardListModel::status(int row) const {
    return row >= 0 && row < status_.size() ? status_[row].text : QString();
}

}  // namespace npuwb::ui
