#pragma once
// Saved board connections (QSettings group "boards"): where a board is and how to reach it. Never a secret:
// passwords and passphrases only ever go to the OS keychain (Keychain.h), and only when the user asks.
#include <QList>
#include <QString>

#include "deploy/Deployer.h"
#include "ssh/SshSession.h"

class QSettings;

namespace npuwb::ui {

struct BoardEntry {
    QString name;            // what the user calls it ("rock5b")
    QString host;            // [user@]host[:port] or a ~/.ssh/config alias
    QString identityFile;    // empty: ssh-agent, the ssh config's IdentityFile and the default keys
    QString knownHostsFile;  // empty: ~/.ssh/known_hosts
    QString sshConfigFile;   // empty: ~/.ssh/config when it exists
    QString remoteDir;       // agent and model cache on the board; empty: ~/.cache/npuwb
    int timeoutSec = 30;     // connect and I/O; a silent board counts as lost after this long

    friend bool operator==(const BoardEntry&, const BoardEntry&) = default;
};

/// The saved boards, in the user's order (an empty list when none were saved).
QList<BoardEntry> loadBoards(QSettings& settings);
void saveBoards(QSettings& settings, const QList<BoardEntry>& boards);

/// Connection options for the remote library. Throws npuwb::Error naming the text when the host is malformed.
remote::ConnectOptions connectOptionsFor(const BoardEntry& board);

/// Deploy options for the board (its cache folder).
remote::DeployOptions deployOptionsFor(const BoardEntry& board);

/// Empty when the entry can be saved, else what is wrong with it (for the connection dialog).
QString validateBoard(const BoardEntry& board, const QList<BoardEntry>& others);

}  // namespace npuwb::ui
