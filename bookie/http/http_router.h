// HttpRouter: which handler answers a request, by exact path (one trailing
// slash ignored, as BookKeeper's documented paths carry one) and method.
//
//   unknown path                       -> 404 {"error": ...}
//   known path, method it does not serve -> 405 {"error": ...}, Allow header
//   PUT / POST / DELETE                -> AdminAuth first (403 / 401)
//   otherwise                          -> the handler
//
// HEAD is served by a path's GET handler. Mutations always pass AdminAuth:
// no route can opt out, so a new mutating endpoint is protected by
// construction. Read-only GETs are open.
//
// Built before the server starts and never changed after (the server holds
// it const): Handle is thread-safe as far as the handlers are.

#ifndef BK_BOOKIE_HTTP_HTTP_ROUTER_H_
#define BK_BOOKIE_HTTP_HTTP_ROUTER_H_

#include <map>
#include <string>

#include "absl/status/status.h"
#include "bookie/http/http_auth.h"
#include "bookie/http/http_message.h"

namespace bk::bookie {

struct HttpRoute {
  std::string method;  // GET, PUT, POST or DELETE
  std::string path;    // exact, e.g. "/api/v1/bookie/state"
  HttpHandler handler;
};

class HttpRouter {
 public:
  explicit HttpRouter(AdminAuth auth = AdminAuth()) : auth_(std::move(auth)) {}

  // InvalidArgument for another method, a path not starting with '/' or a
  // null handler; AlreadyExists when the method and path are taken.
  absl::Status Add(HttpRoute route);

  HttpResponse Handle(const HttpRequest& request) const;

  // True when `method` changes state and so needs AdminAuth.
  static bool IsMutation(const std::string& method);

 private:
  AdminAuth auth_;
  // path -> method -> handler.
  std::map<std::string, std::map<std::string, HttpHandler>> routes_;
};

}  // namespace bk::bookie

#endif  // BK_BOOKIE_HTTP_HTTP_ROUTER_H_
