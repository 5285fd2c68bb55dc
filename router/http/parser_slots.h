// A serving thread's spare room for request parsers (RequestParser, 168 bytes), lent to the
// HTTP/1.1 session that has a request in progress.
//
// Why: a session needs its parser only from the first bytes of a request until it is answered
// or refused (a request that arrives in pieces keeps it between reads); an idle connection
// between requests has none. Kept in the session, the parser's room cost every idle connection
// 168 bytes (issue 19, goal 2). Here a session takes a slot when a request starts and gives it
// back when the request is done, so an idle connection holds a null pointer, and a busy one
// allocates nothing per request: the slot given back is the next one taken (last in, first
// out, still in cache).
//
// A thread keeps every slot it was given back, as many as it had requests in progress at
// once: never more than one per connection, which is what every connection held before. They
// are freed when the thread ends. Only the thread that runs a session touches its slots; a
// session destroyed elsewhere (with an io_context destroyed while it was still queued) gives
// its slot to the thread that destroys it.
#pragma once

#include <cstddef>
#include <new>
#include <utility>

#include "router/http/request_parser.h"

namespace benchgate::router::http {

class ParserSlots {
 public:
  // A parser built from `args` in one of the calling thread's slots (a new one when none is
  // spare).
  template <typename... Args>
  static RequestParser* make(Args&&... args) {
    void* slot = take();
    try {
      return ::new (slot) RequestParser(std::forward<Args>(args)...);
    } catch (...) {
      give(slot);
      throw;
    }
  }
  // Destroys `parser` (from make(), on any thread) and keeps its slot for the calling thread.
  static void destroy(RequestParser* parser) {
    parser->~RequestParser();
    give(parser);
  }

 private:
  // A spare slot's first bytes link it to the next.
  struct Spare {
    Spare* next;
  };
  static_assert(sizeof(Spare) <= sizeof(RequestParser));
  static_assert(alignof(RequestParser) <= __STDCPP_DEFAULT_NEW_ALIGNMENT__);
  struct List {
    Spare* head = nullptr;
    ~List() {
      while (head != nullptr) {
        Spare* next = head->next;
        ::operator delete(head);
        head = next;
      }
    }
  };

  static List& spare() {
    thread_local List list;
    return list;
  }
  static void* take() {
    List& list = spare();
    if (list.head == nullptr) return ::operator new(sizeof(RequestParser));
    Spare* slot = list.head;
    list.head = slot->next;
    return slot;
  }
  static void give(void* slot) {
    List& list = spare();
    list.head = ::new (slot) Spare{list.head};
  }
};

}  // namespace benchgate::router::http
