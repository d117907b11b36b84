// Figures of the fault suite: each test writes the figures it promises to
// a file under <build>/fault-figures/, one line per figure:
//
//   item <TAB> figure <TAB> measured <TAB> promise <TAB> met (1 or 0)
//
// The last test of the suite (fault_figures_table, see CMakeLists.txt)
// gathers every file into one table and fails if a promise is not met.
// A test rewrites its own file on every run, so the table shows the
// latest run of each test.

#ifndef BK_TEST_FAULT_FIGURES_H_
#define BK_TEST_FAULT_FIGURES_H_

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#ifndef BK_FIGURES_DIR
#error "BK_FIGURES_DIR must be defined by the build"
#endif

namespace bk::fault {

class Figures {
 public:
  // `file` names this test's figure file (unique per test case).
  explicit Figures(std::string file) : file_(std::move(file)) {}
  ~Figures() { Write(); }

  // Records one figure; `met` says whether the promise holds.
  void Add(const std::string& item, const std::string& figure,
           const std::string& measured, const std::string& promise, bool met) {
    rows_.push_back(item + "\t" + figure + "\t" + measured + "\t" + promise +
                    "\t" + (met ? "1" : "0"));
    std::printf("FIGURE %s | %s | %s | promise %s | %s\n", item.c_str(),
                figure.c_str(), measured.c_str(), promise.c_str(),
                met ? "met" : "NOT MET");
    std::fflush(stdout);
  }

  // Writes the file now (also done by the destructor). A test that fails
  // part-way still leaves the figures it reached.
  void Write() const {
    std::error_code ec;
    std::filesystem::create_directories(BK_FIGURES_DIR, ec);
    std::ofstream out(std::string(BK_FIGURES_DIR) + "/" + file_ + ".tsv",
                      std::ios::trunc);
    for (const auto& r : rows_) out << r << "\n";
  }

 private:
  std::string file_;
  std::vector<std::string> rows_;
};

}  // namespace bk::fault

#endif  // BK_TEST_FAULT_FIGURES_H_
