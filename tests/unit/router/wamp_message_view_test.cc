// router/wamp/message_view.h: CALL, YIELD and PUBLISH read in place agree with the document
// path (decode() and check_client_message()) on everything the view accepts, and what the view
// does not read is left to that path; the messages the router routes from a view
// (router/wamp/routing_frames.h) decode to what the document path sent.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "router/wamp/frame_pool.h"
#include "router/wamp/message_view.h"
#include "router/wamp/routing_frames.h"
#include "router/wamp/serializer.h"
#include "tests/unit/router/wamp_view_agreement.h"

namespace benchgate::router::wamp {
namespace {

std::vector<uint8_t> bytes_of(Serializer serializer, const Json& message) {
  std::vector<uint8_t> out;
  encode(serializer, message, out);
  return out;
}

std::vector<uint8_t> text(std::string_view json) { return {json.begin(), json.end()}; }

const Serializer kAll[] = {Serializer::kJson, Serializer::kMsgpack, Serializer::kCbor};

// Messages of the three types, and of others, with payloads of every kind of value.
std::vector<Json> samples() {
  const Json payload = Json::array({1, -2, 3.5, "text", nullptr, true, Json::binary({0, 1, 2, 255}),
                                    Json::array({1, 2}), Json{{"k", "v"}}});
  return {
      Json::array({48, 7, Json::object(), "bench.echo", payload}),
      Json::array(
          {48, 7, {{"timeout", 500}, {"receive_progress", true}}, "a.b", payload, Json{{"x", 1}}}),
      Json::array({48, 9007199254740992ull, Json::object(), "a.b"}),
      Json::array({70, 12, {{"progress", true}}, payload}),
      Json::array({70, 12, Json::object()}),
      Json::array({16,
                   3,
                   {{"acknowledge", true}, {"exclude_me", false}},
                   "t.x",
                   payload,
                   Json{{"y", Json::array()}}}),
      Json::array({16, 3, {{"acknowledge", 1}}, "t.x"}),
      Json::array({1, "realm1", Json::object()}),
      Json::array({32, 1, Json::object(), "t.x"}),
  };
}

TEST(WampMessageView, ReadsCallYieldAndPublishAsTheDocumentPathDoes) {
  for (const Serializer serializer : kAll) {
    for (const Json& message : samples()) {
      const std::vector<uint8_t> bytes = bytes_of(serializer, message);
      MessageView view;
      const uint64_t type = message[0].get<uint64_t>();
      const bool routed_type = type == 48 || type == 70 || type == 16;
      EXPECT_EQ(read_view(serializer, bytes, view), routed_type)
          << serializer_name(serializer) << " " << message.dump();
      EXPECT_TRUE(testing::view_agrees(serializer, bytes)) << message.dump();
      EXPECT_TRUE(testing::elements_agree(serializer, bytes)) << message.dump();
    }
  }
}

// The answers the worker reads in place (worker/wamp/session.h): read_elements() takes them,
// element by element as the document has them.
TEST(WampMessageView, ReadsTheWorkersAnswersAsTheDocumentPathDoes) {
  const Json payload = Json::array({Json::binary({0, 1, 2, 255})});
  for (const Serializer serializer : kAll) {
    for (const Json& message :
         {Json::array({50, 4097, Json::object(), payload}), Json::array({17, 4098, 77}),
          Json::array({36, 5, 6, Json::object(), Json::array({1, 2, 3, 4, payload[0]})}),
          Json::array({68, 9, 3, Json::object(), payload, Json{{"k", "v"}}})}) {
      const std::vector<uint8_t> bytes = bytes_of(serializer, message);
      std::array<ViewElement, kMaxViewElements> elements;
      size_t size = 0;
      EXPECT_TRUE(serialization::read_elements(serializer, bytes, elements, size))
          << serializer_name(serializer) << " " << message.dump();
      EXPECT_EQ(size, message.size());
      EXPECT_TRUE(testing::elements_agree(serializer, bytes)) << message.dump();
    }
  }
}

TEST(WampMessageView, FindsTheOptionsTheRouterActsOn) {
  for (const Serializer serializer : kAll) {
    const Json message = Json::array({48,
                                      1,
                                      {{"timeout", 5}, {"receive_progress", true}, {"other", "x"}},
                                      "a.b",
                                      Json::array()});
    const std::vector<uint8_t> bytes = bytes_of(serializer, message);
    MessageView view;
    ASSERT_TRUE(read_view(serializer, bytes, view));
    const Option timeout = find_option(serializer, view[2].bytes, "timeout");
    EXPECT_EQ(timeout.kind, Option::Kind::unsigned_int);
    EXPECT_EQ(timeout.number, 5u);
    EXPECT_TRUE(find_option(serializer, view[2].bytes, "receive_progress").is_true());
    EXPECT_EQ(find_option(serializer, view[2].bytes, "other").kind, Option::Kind::other);
    EXPECT_EQ(find_option(serializer, view[2].bytes, "absent").kind, Option::Kind::absent);
  }
  // A repeated key keeps the last value, as the decoder does.
  const std::vector<uint8_t> json =
      text(R"([16,1,{"acknowledge":true,"acknowledge":false},"t",[]])");
  MessageView view;
  ASSERT_TRUE(read_view(Serializer::kJson, json, view));
  const Option acknowledge = find_option(Serializer::kJson, view[2].bytes, "acknowledge");
  EXPECT_EQ(acknowledge.kind, Option::Kind::boolean);
  EXPECT_FALSE(acknowledge.is_true());
  // A key with an escape: the view cannot tell, the document path decides.
  const std::vector<uint8_t> escaped = text(R"([16,1,{"acknowledg\u0065":true},"t"])");
  ASSERT_TRUE(read_view(Serializer::kJson, escaped, view));
  EXPECT_EQ(find_option(Serializer::kJson, view[2].bytes, "acknowledge").kind,
            Option::Kind::unknown);
}

TEST(WampMessageView, LeavesWhatItDoesNotReadToTheDocumentPath) {
  MessageView view;
  // An id written as a signed integer (MessagePack int 8: 0xd0).
  const std::vector<uint8_t> signed_id = {0x94, 0x30, 0xd0, 0x01, 0x80, 0xa3, 'a', '.', 'b'};
  EXPECT_FALSE(read_view(Serializer::kMsgpack, signed_id, view));
  // A CBOR indefinite-length list as Arguments.
  const std::vector<uint8_t> indefinite = {0x85, 0x18, 0x30, 0x01, 0xa0, 0x63,
                                           'a',  '.',  'b',  0x9f, 0x01, 0xff};
  EXPECT_FALSE(read_view(Serializer::kCbor, indefinite, view));
  Json decoded;
  EXPECT_TRUE(decode(Serializer::kCbor, indefinite, decoded));
  // A JSON byte order mark, a number only strtod rounds (underflow), a binary string with an
  // escape in its base64, a URI with an escape (read, but marked).
  EXPECT_FALSE(read_view(Serializer::kJson, text("\xef\xbb\xbf[48,1,{},\"a.b\"]"), view));
  EXPECT_FALSE(read_view(Serializer::kJson, text(R"([48,1,{},"a.b",[1e-400]])"), view));
  EXPECT_FALSE(read_view(Serializer::kJson, text(R"([48,1,{},"a.b",["\u0000AA\/A"]])"), view));
  ASSERT_TRUE(read_view(Serializer::kJson, text(R"([48,1,{},"a\u002eb"])"), view));
  EXPECT_TRUE(view[3].escaped);
  // What the document path refuses, the view refuses too.
  for (const std::string_view bad :
       {R"([48,1,{},"a.b",[1,]])", R"([48,1,{},"a.b",[01]])", R"([48,1,{},"a.b",["\u0000A"]])",
        R"([48,1,{},"a.b",["\ud800"]])", R"([48,1,{},"a.b",[1e999]])", R"([48,1,{},"a.b"] x)",
        R"([48,-1,{},"a.b"])", R"([48,9007199254740993,{},"a.b"])", R"([48,1,[],"a.b"])",
        R"([48,1,{},"a.b",{}])", R"([48,1,{},"a.b",[],{},1])"}) {
    EXPECT_FALSE(read_view(Serializer::kJson, text(bad), view)) << bad;
  }
}

// Every message of samples(), cut, with bytes changed, inserted or removed, in every
// serialization: whatever the view accepts, the document path reads the same way.
TEST(WampMessageView, AgreesWithTheDocumentPathOnMutatedMessages) {
  std::mt19937 random(19);
  size_t accepted = 0;
  size_t checked = 0;
  for (const Serializer serializer : kAll) {
    for (const Json& message : samples()) {
      const std::vector<uint8_t> original = bytes_of(serializer, message);
      for (int round = 0; round < 3000; ++round) {
        std::vector<uint8_t> bytes = original;
        const int edits = 1 + static_cast<int>(random() % 3);
        for (int e = 0; e < edits && !bytes.empty(); ++e) {
          const size_t at = random() % bytes.size();
          switch (random() % 4) {
            case 0:
              bytes[at] = static_cast<uint8_t>(random());
              break;
            case 1:
              bytes.insert(bytes.begin() + static_cast<std::ptrdiff_t>(at),
                           static_cast<uint8_t>(random()));
              break;
            case 2:
              bytes.erase(bytes.begin() + static_cast<std::ptrdiff_t>(at));
              break;
            default:
              bytes.resize(at);
          }
        }
        MessageView view;
        if (read_view(serializer, bytes, view)) ++accepted;
        ++checked;
        ASSERT_TRUE(testing::view_agrees(serializer, bytes))
            << serializer_name(serializer) << " from " << message.dump();
        ASSERT_TRUE(testing::elements_agree(serializer, bytes))
            << serializer_name(serializer) << " from " << message.dump();
      }
    }
  }
  // The sweep reached the view's acceptance, not only its refusals.
  EXPECT_GT(accepted, checked / 40);
}

// A message routed from a view decodes to the message the document path builds.
TEST(WampMessageView, RoutedFramesCarryThePayloadInTheReceiversSerialization) {
  const Json payload = Json::array({1, "two", Json::binary({3, 4}), Json{{"five", 5.5}}});
  const Json kwargs = Json{{"k", Json::array({true, nullptr})}};
  for (const Serializer from : kAll) {
    const std::vector<uint8_t> call =
        bytes_of(from, Json::array({48, 7, Json::object(), "a.b", payload, kwargs}));
    MessageView view;
    ASSERT_TRUE(read_view(from, call, view));
    for (const Serializer to : kAll) {
      FramePool pool;
      Json decoded;
      ASSERT_TRUE(decode(to, *result_frame(pool, to, 7, true, view, 4), decoded));
      EXPECT_EQ(decoded, Json::array({50, 7, {{"progress", true}}, payload, kwargs}));
      ASSERT_TRUE(decode(to, *invocation_frame(pool, to, 8, 9, false, view, 4), decoded));
      EXPECT_EQ(decoded, Json::array({68, 8, 9, Json::object(), payload, kwargs}));
      ASSERT_TRUE(decode(to, *event_frame(pool, to, 10, 11, view, 4), decoded));
      EXPECT_EQ(decoded, Json::array({36, 10, 11, Json::object(), payload, kwargs}));
      ASSERT_TRUE(decode(to, *published_frame(pool, to, 12, 13), decoded));
      EXPECT_EQ(decoded, Json::array({17, 12, 13}));
    }
  }
}

// A frame the queues let go of is handed out again with its capacity; one still held is not.
TEST(WampFramePool, HandsOutAFrameAgainOnceNothingElseHoldsIt) {
  FramePool pool;
  auto first = pool.take();
  first->assign(100, 1);
  const uint8_t* storage = first->data();
  const size_t capacity = first->capacity();
  Frame queued = first;
  first.reset();
  auto second = pool.take();
  EXPECT_NE(second->data(), storage);  // `queued` still holds the first
  second.reset();
  queued.reset();
  auto third = pool.take();
  EXPECT_TRUE(third->empty());
  EXPECT_EQ(third->data(), storage);
  EXPECT_EQ(third->capacity(), capacity);
  EXPECT_EQ(pool.size(), 2u);
}

}  // namespace
}  // namespace benchgate::router::wamp
