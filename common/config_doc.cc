#include "common/config_doc.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"

namespace bk {
namespace {

std::string Unit(const OptionDef& d) { return d.unit.empty() ? "-" : d.unit; }

std::string RangeText(const OptionDef& d) {
  return d.has_range() ? absl::StrCat(d.min, "..", d.max) : "";
}

// A table cell: no line breaks, and '|' escaped.
std::string Cell(const std::string& text) {
  return absl::StrReplaceAll(text, {{"|", "\\|"}, {"\n", " "}});
}

}  // namespace

std::string ConfigTemplate(const ConfigSchema& schema,
                           const std::string& header) {
  std::string out;
  for (absl::string_view line : absl::StrSplit(header, '\n')) {
    absl::StrAppend(&out, line.empty() ? "#" : absl::StrCat("# ", line), "\n");
  }
  for (const OptionDef& d : schema.options()) {
    absl::StrAppend(&out, "\n# ", d.key, ": ", d.help, "\n#   type ",
                    OptionTypeName(d.type), "; unit ", Unit(d), "; default ",
                    d.default_value.empty() ? "(empty)" : d.default_value);
    if (d.has_range()) absl::StrAppend(&out, "; range ", RangeText(d));
    absl::StrAppend(&out, "\n#", d.key, "=", d.secret ? "" : d.default_value,
                    "\n");
  }
  return out;
}

std::string ConfigReference(const ConfigSchema& schema,
                            const std::string& title,
                            const std::string& intro) {
  std::string out = absl::StrCat("# ", title, "\n\n", intro, "\n\n");
  absl::StrAppend(&out,
                  "| key | type | unit | default | range | meaning |\n"
                  "|---|---|---|---|---|---|\n");
  for (const OptionDef& d : schema.options()) {
    const std::string def = d.secret ? "****"
                            : d.default_value.empty()
                                ? "(empty)"
                                : absl::StrCat("`", d.default_value, "`");
    absl::StrAppend(&out, "| `", d.key, "` | ", Cell(OptionTypeName(d.type)),
                    " | ", Cell(Unit(d)), " | ", Cell(def), " | ", RangeText(d),
                    " | ", Cell(d.help), " |\n");
  }
  return out;
}

}  // namespace bk
