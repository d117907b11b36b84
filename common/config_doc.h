// Documents generated from a ConfigSchema (config.h), so that what an
// operator reads is what the program accepts:
//
//  - ConfigTemplate: a key=value file with every key commented out under
//    its meaning, type, unit, default and range (deploy/config/bookie.conf
//    is `bookie --print-config-template`). It loads as it is, and with every
//    key uncommented it sets every key to its default.
//  - ConfigReference: the same as a Markdown table (bookie/CONFIG.md,
//    client/CONFIG.md; `build/bin/config_reference`).
//
// Tests regenerate both and fail on any difference from the committed
// files (test/deploy/check_config.py, check_config_docs.py).

#ifndef BK_COMMON_CONFIG_DOC_H_
#define BK_COMMON_CONFIG_DOC_H_

#include <string>

#include "common/config.h"

namespace bk {

// `header` is the file's opening comment, without '#' marks: one line of
// text per line ("" for an empty comment line).
std::string ConfigTemplate(const ConfigSchema& schema,
                           const std::string& header);

// `title` is the Markdown heading; `intro` paragraphs go between the heading
// and the table.
std::string ConfigReference(const ConfigSchema& schema,
                            const std::string& title, const std::string& intro);

}  // namespace bk

#endif  // BK_COMMON_CONFIG_DOC_H_
