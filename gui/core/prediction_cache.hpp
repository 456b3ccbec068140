// The speed ladder's predictions kept on disk between runs of the app. Every step's model speed
// at 4096³ takes about 9 s of one core (22 steps); they depend only on the program (its kernels
// and its model) and on the card, so a run of the same program reads them instead of making
// them again. The file names the program it was made by (its version, its commit and its
// executable's size and modification time): a rebuilt or another program ignores it and
// writes its own. It is read like any outside file (bounded, checked field by field); a bad
// one is ignored and replaced, and a cache that cannot be written costs only the time.
//
//   $XDG_CACHE_HOME/gemmscope/speed-ladder.json (else ~/.cache/gemmscope/...)
#pragma once

#include <map>
#include <string>

#include "gui/core/speed_ladder.hpp"

namespace gs::gui {

// The folder of the cache ("" when neither XDG_CACHE_HOME nor HOME is set: no cache).
std::string cache_directory();

// What the file must name to be this program's: version, commit, executable size and time.
std::string program_identity();

// The predictions `dir`'s file holds for `identity`;
// empty when there is no file, it is another program's, or it cannot be read (`why` says).
std::map<std::string, SpeedPrediction> load_prediction_cache(const std::string& dir, const std::string& identity,
                                                             std::string* why = nullptr);

// Writes the figures of `predictions` (finished, no error) for `identity` (a temporary file renamed over the
// old). False with `why` when the folder or the file cannot be written.
bool save_prediction_cache(const std::string& dir, const std::string& identity,
                           const std::map<std::string, SpeedPrediction>& predictions, std::string* why = nullptr);

}  // namespace gs::gui
