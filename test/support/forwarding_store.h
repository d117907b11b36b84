// ForwardingStore: a MetadataStore that hands every call to another store,
// for tests that misbehave in one or two calls and forward the rest
// (override those, call ForwardingStore's for the normal answer).
// Thread-safe as far as the target is.

#ifndef BK_TEST_SUPPORT_FORWARDING_STORE_H_
#define BK_TEST_SUPPORT_FORWARDING_STORE_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "metadata/metadata_store.h"

namespace bk::testing {

class ForwardingStore : public metadata::MetadataStore {
 public:
  // `target` must outlive this store.
  explicit ForwardingStore(metadata::MetadataStore* target) : target_(target) {}
  // Owns its target.
  explicit ForwardingStore(std::unique_ptr<metadata::MetadataStore> target)
      : owned_(std::move(target)), target_(owned_.get()) {}

  metadata::MetadataStore& target() { return *target_; }

  const std::string& uri() const override { return target_->uri(); }
  absl::StatusOr<metadata::LedgerId> NewLedgerId() override {
    return target_->NewLedgerId();
  }
  void NewLedgerIdAsync(metadata::Callback<metadata::LedgerId> done) override {
    target_->NewLedgerIdAsync(std::move(done));
  }
  absl::StatusOr<metadata::Version> CreateLedger(
      metadata::LedgerId id, const proto::LedgerMetadata& md) override {
    return target_->CreateLedger(id, md);
  }
  void CreateLedgerAsync(metadata::LedgerId id, const proto::LedgerMetadata& md,
                         metadata::Callback<metadata::Version> done) override {
    target_->CreateLedgerAsync(id, md, std::move(done));
  }
  absl::StatusOr<metadata::Versioned<proto::LedgerMetadata>> ReadLedger(
      metadata::LedgerId id) override {
    return target_->ReadLedger(id);
  }
  void ReadLedgerAsync(
      metadata::LedgerId id,
      metadata::Callback<metadata::Versioned<proto::LedgerMetadata>> done)
      override {
    target_->ReadLedgerAsync(id, std::move(done));
  }
  absl::StatusOr<metadata::Version> CompareAndSetLedger(
      metadata::LedgerId id, const proto::LedgerMetadata& md,
      metadata::Version expected) override {
    return target_->CompareAndSetLedger(id, md, expected);
  }
  void CompareAndSetLedgerAsync(
      metadata::LedgerId id, const proto::LedgerMetadata& md,
      metadata::Version expected,
      metadata::Callback<metadata::Version> done) override {
    target_->CompareAndSetLedgerAsync(id, md, expected, std::move(done));
  }
  absl::Status DeleteLedger(metadata::LedgerId id,
                            metadata::Version expected) override {
    return target_->DeleteLedger(id, expected);
  }
  void DeleteLedgerAsync(metadata::LedgerId id, metadata::Version expected,
                         metadata::StatusCallback done) override {
    target_->DeleteLedgerAsync(id, expected, std::move(done));
  }
  std::unique_ptr<metadata::LedgerIterator> ListLedgers() override {
    return target_->ListLedgers();
  }
  std::unique_ptr<metadata::Subscription> WatchLedger(
      metadata::LedgerId id,
      absl::AnyInvocable<
          void(absl::StatusOr<metadata::Versioned<proto::LedgerMetadata>>)>
          on_change) override {
    return target_->WatchLedger(id, std::move(on_change));
  }
  absl::Status RegisterBookie(const proto::BookieServiceInfo& info) override {
    return target_->RegisterBookie(info);
  }
  absl::Status UnregisterBookie(const std::string& id) override {
    return target_->UnregisterBookie(id);
  }
  absl::StatusOr<metadata::BookieSet> ListBookies() override {
    return target_->ListBookies();
  }
  std::unique_ptr<metadata::Subscription> WatchBookies(
      absl::AnyInvocable<void(absl::StatusOr<metadata::BookieSet>)> on_change)
      override {
    return target_->WatchBookies(std::move(on_change));
  }
  absl::StatusOr<metadata::Versioned<proto::Cookie>> ReadCookie(
      const std::string& id) override {
    return target_->ReadCookie(id);
  }
  absl::StatusOr<metadata::Version> WriteCookie(
      const std::string& id, const proto::Cookie& cookie,
      metadata::Version expected) override {
    return target_->WriteCookie(id, cookie, expected);
  }
  absl::Status DeleteCookie(const std::string& id,
                            metadata::Version expected) override {
    return target_->DeleteCookie(id, expected);
  }
  absl::StatusOr<std::vector<std::string>> ListCookies() override {
    return target_->ListCookies();
  }
  absl::StatusOr<metadata::Versioned<metadata::BookieGroups>> ReadBookieGroups(
      const std::string& id) override {
    return target_->ReadBookieGroups(id);
  }
  absl::StatusOr<metadata::Version> WriteBookieGroups(
      const metadata::BookieGroups& groups,
      metadata::Version expected) override {
    return target_->WriteBookieGroups(groups, expected);
  }
  absl::Status DeleteBookieGroups(const std::string& id,
                                  metadata::Version expected) override {
    return target_->DeleteBookieGroups(id, expected);
  }
  absl::StatusOr<std::vector<metadata::BookieGroups>> ListBookieGroups()
      override {
    return target_->ListBookieGroups();
  }
  absl::StatusOr<std::string> InstanceId() override {
    return target_->InstanceId();
  }
  absl::Status Sync() override { return target_->Sync(); }
  absl::StatusOr<std::string> CreateNode(const std::string& path,
                                         const std::string& data,
                                         NodeMode mode) override {
    return target_->CreateNode(path, data, mode);
  }
  absl::StatusOr<metadata::Versioned<std::string>> ReadNode(
      const std::string& path) override {
    return target_->ReadNode(path);
  }
  absl::StatusOr<metadata::Version> SetNode(
      const std::string& path, const std::string& data,
      metadata::Version expected) override {
    return target_->SetNode(path, data, expected);
  }
  absl::Status DeleteNode(const std::string& path,
                          metadata::Version expected) override {
    return target_->DeleteNode(path, expected);
  }
  absl::StatusOr<std::vector<std::string>> ListChildren(
      const std::string& path) override {
    return target_->ListChildren(path);
  }
  absl::StatusOr<bool> OwnsNode(const std::string& path) override {
    return target_->OwnsNode(path);
  }
  std::unique_ptr<metadata::Subscription> WatchChildren(
      const std::string& path,
      absl::AnyInvocable<void(absl::StatusOr<std::vector<std::string>>)>
          on_change) override {
    return target_->WatchChildren(path, std::move(on_change));
  }
  std::unique_ptr<metadata::Subscription> AddSessionListener(
      absl::AnyInvocable<void(metadata::SessionEvent)> listener) override {
    return target_->AddSessionListener(std::move(listener));
  }

 private:
  const std::unique_ptr<metadata::MetadataStore> owned_;  // may be null
  metadata::MetadataStore* const target_;
};

}  // namespace bk::testing

#endif  // BK_TEST_SUPPORT_FORWARDING_STORE_H_
