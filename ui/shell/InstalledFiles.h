#pragma once
// Files the program ships beside itself: installed under <prefix>/share (next to <prefix>/bin), or, run from a build
// tree, the source tree's (found walking up from the program's folder to the folder holding engine/README.md).
#include <QString>
#include <QStringList>

namespace npuwb::ui {

/// `installed` relative to <prefix> ("share/doc/npuwb/README.md") when it exists, else `inSource` relative to the
/// source tree ("README.md"); empty when neither exists.
QString installedOrSourceFile(const QString& installed, const QString& inSource);

/// The bundled sample models (share/npuwb/samples/*.onnx, or the source tree's resources/samples), by name.
QStringList sampleModels();

}  // namespace npuwb::ui
