import { describe, expect, it } from "vitest";
import { GET as healthRoute } from "@/app/api/health/route";
import { GET as searchRoute } from "@/app/api/v1/search/route";
import { readFileSync } from "node:fs";
import { searchMessages } from "@/lib/db/search";
import {
  fts5Match,
  gramArray,
  HIT_END,
  HIT_START,
  longTerm,
  searchTerms,
  snippetMarkup,
  substringSnippet,
  trigramMatch,
  tsQuery,
  unspacedGlob,
  unspacedRegex,
} from "@/lib/db/search-query";
import { group, update } from "../fixtures/telegram";
import { databases } from "../helpers/db";
import { useRoutedApp } from "../helpers/route-app";

const TOKEN = "search-token-0123456789abcdef";
type Result = {
  messageId: number;
  conversationId: number;
  snippet: string;
  sentAt: string;
  deletedAt: string | null;
  senderKind: string;
  conversationTitle: string | null;
  channel: string;
};

const word = (...parts: string[]) => ({ kind: "word", parts });
const substring = (text: string) => ({ kind: "substring", text });

describe("search terms and snippets", () => {
  it("keeps words only, so no query syntax reaches the database", () => {
    expect(searchTerms('"')).toEqual([]);
    expect(searchTerms("AND(")).toEqual([word("and")]);
    expect(searchTerms('invoice* -"refund" NEAR(a b)')).toEqual([word("invoice"), word("refund"), word("near"), word("a"), word("b")]);
    expect(searchTerms("Größe café")).toEqual([word("größe"), word("café")]);
    // Combining marks belong to their word (the databases' tokenizers keep them together).
    expect(searchTerms("ส่งของ हिन्दी")).toEqual([substring("ส่งของ"), word("हिन्दी")]);
    expect(fts5Match([{ parts: ["and"] }, { parts: ['x"y'] }])).toBe('"and"* "x""y"*');
  });

  it("a word with an apostrophe is a phrase of its parts, as the tokenizers split it; each word is a prefix", () => {
    expect(searchTerms("It's don’t O'Reilly arriv")).toEqual([word("it", "s"), word("don", "t"), word("o", "reilly"), word("arriv")]);
    const terms = [{ parts: ["it", "s"] }, { parts: ["o", "reilly"] }, { parts: ["arriv"] }, { parts: ["a"] }];
    // A one-letter last part is a whole word: as a prefix it would expand to every word starting with it.
    expect(fts5Match(terms)).toBe('"it s" "o reilly"* "arriv"* "a"');
    expect(tsQuery(terms)).toBe("('it' <-> 's') & ('o' <-> 'reilly':*) & 'arriv':* & 'a'");
  });

  it("refuses words too long to search for, whatever the script", () => {
    expect(longTerm(`short ${"あ".repeat(64)}`)).toBeUndefined();
    expect(longTerm(`short ${"あ".repeat(65)}`)).toBe("あ".repeat(65));
    expect(longTerm("x".repeat(65))).toBe("x".repeat(65));
  });

  it("substrings are looked up by their n-grams: trigrams on SQLite, pairs on PostgreSQL", () => {
    expect(trigramMatch(["東京", "会議室"])).toBe('"会議室"');
    expect(trigramMatch(["東京"])).toBeNull();
    expect(trigramMatch(["東京本社"])).toBe('"東京本" "京本社"');
    expect(gramArray(["東京本", "猫"])).toBe('{"東京","京本","猫"}');
  });

  it("both migrations index exactly the messages whose words are searched as substrings", () => {
    const sqlite = readFileSync("prisma/migrations/sqlite/20261125103000_message_substring_search/migration.sql", "utf8");
    const postgres = readFileSync("prisma/migrations/postgresql/20261125103000_message_substring_search/migration.sql", "utf8");
    expect(sqlite.split(`GLOB '${unspacedGlob()}'`)).toHaveLength(6);
    expect(postgres).toContain(`WHERE "text" ~ '${unspacedRegex()}'`);
  });

  it("escapes the text and marks only the database's hits", () => {
    expect(snippetMarkup(`<img src=x onerror=alert(1)> ${HIT_START}refund${HIT_END} & more`)).toBe(
      "&lt;img src=x onerror=alert(1)&gt; <mark>refund</mark> &amp; more",
    );
    expect(snippetMarkup(`${HIT_START}open`)).toBe("<mark>open</mark>");
    expect(snippetMarkup(`stray${HIT_END}`)).toBe("stray");
  });

  it("searches scripts written without spaces as substrings, literally", () => {
    expect(searchTerms("refund 東京 ส่ง 서울 café")).toEqual([
      word("refund"),
      substring("東京"),
      substring("ส่ง"),
      substring("서울"),
      word("café"),
    ]);
    const snippet = substringSnippet(`${"x".repeat(200)} 明日東京に行きます。東京駅で会いましょう ${"y".repeat(200)}`, ["東京"]);
    expect(snippet.startsWith("…") && snippet.endsWith("…")).toBe(true);
    expect(snippetMarkup(snippet)).toContain("明日<mark>東京</mark>に行きます。<mark>東京</mark>駅");
    expect(snippetMarkup(substringSnippet("Order iPhone用ケース", ["iphone用"]))).toBe("Order <mark>iPhone用</mark>ケース");
  });
});

describe.each(databases)("GET /api/v1/search ($name)", ({ open }) => {
  const app = useRoutedApp({ open, token: TOKEN });

  const search = async (q: string, headers: Record<string, string> = { authorization: `Bearer ${TOKEN}` }, filters = "") => {
    const response = await searchRoute(new Request(`http://localhost/api/v1/search?q=${encodeURIComponent(q)}${filters}`, { headers }), {
      params: Promise.resolve({}),
    });
    return { status: response.status, body: (await response.json()) as { results: Result[]; incomplete: boolean; error?: string } };
  };
  const auth = { authorization: `Bearer ${TOKEN}` };
  /** The found messages' texts, best first. */
  const texts = async (q: string, filters = "") => {
    const { status, body } = await search(q, auth, filters);
    expect(status, JSON.stringify(body)).toBe(200);
    const ids = body.results.map((r) => r.messageId);
    const rows = await app.t.db.prisma.message.findMany({ where: { id: { in: ids } } });
    return ids.map((id) => rows.find((m) => m.id === id)!.text);
  };

  it("finds what was said, best match first, with a marked, escaped snippet", async () => {
    await app.t.post(update({ chat: group, text: "the weather is nice today" }));
    await app.t.post(update({ chat: group, text: "my refund for the invoice has not arrived" }));
    await app.t.post(update({ chat: group, text: "refund refund refund: <b>still</b> waiting for the refund" }));
    await app.t.post(update({ text: "an unrelated private note" }));
    const best = await app.t.db.prisma.message.findFirstOrThrow({ where: { text: { startsWith: "refund refund" } } });
    const other = await app.t.db.prisma.message.findFirstOrThrow({ where: { text: { startsWith: "my refund" } } });

    const { status, body } = await search("Refund");
    expect(status).toBe(200);
    expect(body.results.map((r) => r.messageId)).toEqual([best.id, other.id]);
    expect(body.results[0]).toMatchObject({ conversationId: best.conversationId, sentAt: best.sentAt.toISOString() });
    expect(body.results[0]!.snippet).toContain("<mark>refund</mark>");
    // The message's own markup never survives as markup (SQLite escapes it; PostgreSQL's parser drops tags).
    expect(body.results[0]!.snippet).toContain("still");
    expect(body.results[0]!.snippet.replace(/<\/?mark>/g, "")).not.toMatch(/[<>]/);
    // Every word must match.
    expect((await search("refund invoice")).body.results.map((r) => r.messageId)).toEqual([other.id]);
  });

  it("follows edits: the new text is found, the old one no longer", async () => {
    await app.t.post(update({ chat: group, messageId: 501, text: "first draft with a typo" }));
    await app.t.post(update({ chat: group, messageId: 501, text: "final wording", edited: true }));
    expect((await search("typo")).body.results).toEqual([]);
    expect((await search("wording")).body.results).toHaveLength(1);
  });

  it("an unsent message stays findable for operators, marked unsent (as the timeline keeps it)", async () => {
    await app.t.post(update({ chat: group, messageId: 601, text: "my card number was wrongly posted" }));
    const message = await app.t.db.prisma.message.findFirstOrThrow();
    expect((await search("card")).body.results[0]).toMatchObject({ messageId: message.id, deletedAt: null });
    const at = new Date("2026-11-23T10:00:00.000Z");
    await app.t.db.prisma.message.update({ where: { id: message.id }, data: { deletedAt: at } });
    expect((await search("card")).body.results[0]).toMatchObject({ messageId: message.id, deletedAt: at.toISOString() });
  });

  it("words of any script separated by spaces are found; hostile text in the message stays text", async () => {
    await app.t.post(update({ chat: group, text: "配送 状況 🦘 <script>alert(1)</script> ส่งของ हिन्दी" }));
    for (const q of ["配送", "ส่งของ", "हिन्दी", "🦘 配送"]) expect((await search(q)).body.results, q).toHaveLength(1);
    // (PostgreSQL's parser reads `<script>` as a tag, not a word: only SQLite finds "script".)
    expect((await search("配送")).body.results[0]!.snippet.replace(/<\/?mark>/g, "")).not.toMatch(/[<>]/);
  });

  it("finds a word inside Japanese, Chinese, Thai and Korean text written without spaces, newest first, marked", async () => {
    const japanese = "明日の会議は東京本社で行います。よろしくお願いします";
    const chinese = "我的订单还没有发货，请帮我查一下物流信息";
    const thai = "สวัสดีครับ ผมอยากสอบถามเรื่องการส่งของครับ";
    const korean = "서울에서 주문했는데 배송이 아직 안 왔어요";
    for (const [i, text] of [japanese, chinese, thai, korean].entries())
      await app.t.post(update({ chat: group, messageId: 700 + i, text }));
    await app.t.post(update({ chat: group, messageId: 710, text: "東京 office moved: see the refund policy" }));
    const found = async (q: string) => (await search(q)).body.results.map((r) => r.snippet.replace(/<\/?mark>/g, ""));
    expect(await found("東京")).toEqual(["東京 office moved: see the refund policy", japanese]);
    expect((await search("会議")).body.results[0]!.snippet).toContain("<mark>会議</mark>");
    expect(await found("物流")).toEqual([chinese]);
    expect((await search("物流")).body.results[0]).toMatchObject({ senderKind: "user", senderName: expect.any(String) });
    expect(await found("การส่งของ")).toEqual([thai]);
    expect(await found("서울")).toEqual([korean]);
    expect(await found("배송")).toEqual([korean]);
    // Mixed with a word: both must match.
    expect(await found("東京 refund")).toEqual(["東京 office moved: see the refund policy"]);
    expect(await found("東京 invoice")).toEqual([]);
    expect(await found("大阪")).toEqual([]);
    // A substring, in order: not the same characters anywhere.
    expect(await found("京東")).toEqual([]);
  });

  it.each([
    '"',
    "AND(",
    "NEAR(",
    "*",
    "-",
    "a OR",
    '""""',
    "(",
    ")",
    "^",
    "col:val",
    '\'; DROP TABLE "Message"; --',
    "x ".repeat(250),
    "l' ’s ʼ it'",
    "½ ⅸ ǅ ß̈",
    "o''reilly a’’b",
    "a".repeat(64),
  ])("a hostile query %j is a 200, never a 500", async (q) => {
    await app.t.post(update({ chat: group, text: "and near or not" }));
    const { status, body } = await search(q);
    expect(status).toBe(200);
    expect(Array.isArray(body.results)).toBe(true);
    expect(await app.t.db.prisma.message.count()).toBe(1);
  });

  it("needs a session or the API token; an over-long query, or one holding U+0000, is a 400", async () => {
    expect((await search("refund", {})).status).toBe(401);
    expect((await search("x".repeat(501))).status).toBe(400);
    expect((await search("a\u0000b")).status).toBe(400);
  });

  it("finds a word from its beginning: arriv and arrive find arrived, not the middle of a word", async () => {
    await app.t.post(update({ chat: group, text: "My parcel arrived yesterday" }));
    await app.t.post(update({ chat: group, text: "The arrival hall" }));
    expect((await texts("arriv")).sort()).toEqual(["My parcel arrived yesterday", "The arrival hall"]);
    expect(await texts("arrive")).toEqual(["My parcel arrived yesterday"]);
    expect(await texts("Arrived parc")).toEqual(["My parcel arrived yesterday"]);
    expect(await texts("rrived")).toEqual([]);
    const { body } = await search("arriv");
    expect(body.results[0]!.snippet).toMatch(/<mark>arriv/i);
  });

  it("finds words with an apostrophe, typed straight or curly, as they were written either way", async () => {
    await app.t.post(update({ chat: group, text: "It's here at last" }));
    await app.t.post(update({ chat: group, text: "I don’t know yet" }));
    await app.t.post(update({ chat: group, text: "Ask O'Reilly about it" }));
    await app.t.post(update({ chat: group, text: "its own thing, dont worry" }));
    expect(await texts("it's")).toEqual(["It's here at last"]);
    expect(await texts("it’s here")).toEqual(["It's here at last"]);
    expect(await texts("don't")).toEqual(["I don’t know yet"]);
    expect(await texts("don’t know")).toEqual(["I don’t know yet"]);
    expect(await texts("o'reilly")).toEqual(["Ask O'Reilly about it"]);
    expect(await texts("O’Reil")).toEqual(["Ask O'Reilly about it"]);
  });

  it("narrows by conversation, sender kind, platform and date; results say which conversation and when", async () => {
    await app.t.post(update({ chat: group, text: "parcel status in the group", date: Date.parse("2026-01-10T10:00:00Z") / 1000 }));
    await app.t.post(update({ text: "parcel status in private", date: Date.parse("2026-02-10T10:00:00Z") / 1000 }));
    const groupChat = await app.t.db.prisma.conversation.findFirstOrThrow({ where: { type: { not: "private" } } });
    const reply = await app.t.db.prisma.message.create({
      data: {
        conversationId: groupChat.id,
        direction: "outbound",
        senderKind: "operator",
        senderName: "alice",
        text: "your parcel ships tomorrow",
        sentAt: new Date("2026-03-01T09:00:00Z"),
      },
    });
    expect(await texts("parcel")).toHaveLength(3);
    expect(await texts("parcel", `&conversationId=${groupChat.id}`)).toEqual(["your parcel ships tomorrow", "parcel status in the group"]);
    expect(await texts("parcel", "&sender=operator")).toEqual(["your parcel ships tomorrow"]);
    expect(await texts("parcel", "&sender=user,agent")).toHaveLength(2);
    expect(await texts("parcel", "&channel=line")).toEqual([]);
    expect(await texts("parcel", "&channel=telegram")).toHaveLength(3);
    expect(await texts("parcel", `&from=${encodeURIComponent("2026-02-01T00:00:00Z")}`)).toHaveLength(2);
    expect(await texts("parcel", `&from=2026-02-01T00:00:00Z&to=2026-03-01T09:00:00Z`)).toEqual(["parcel status in private"]);
    const { body } = await search("ships", auth, "&sender=operator");
    expect(body.results).toEqual([
      expect.objectContaining({
        messageId: reply.id,
        conversationId: groupChat.id,
        conversationTitle: groupChat.title,
        channel: "telegram",
        senderKind: "operator",
        sentAt: "2026-03-01T09:00:00.000Z",
      }),
    ]);
    expect(body.incomplete).toBe(false);
    // Substring searches take the same filters.
    await app.t.post(update({ chat: group, text: "東京の荷物はまだです" }));
    await app.t.post(update({ text: "東京に着きました" }));
    expect(await texts("東京", `&conversationId=${groupChat.id}`)).toEqual(["東京の荷物はまだです"]);
    expect(await texts("東京の荷物", "&sender=operator")).toEqual([]);
    // Bad filters are a 400 that names them.
    for (const bad of ["&sender=robot", "&conversationId=abc", "&from=yesterday", "&channel=whatsapp"]) {
      const response = await search("parcel", auth, bad);
      expect(response.status, bad).toBe(400);
    }
  });

  it("finds operators' notes too, apart from the messages and marked as notes, with the same filters", async () => {
    await app.t.post(update({ chat: group, text: "where is my courier?" }));
    const conversation = await app.t.db.prisma.conversation.findFirstOrThrow();
    await app.t.db.prisma.conversationNote.create({
      data: {
        conversationId: conversation.id,
        operatorId: 0,
        operatorName: "dana",
        text: "Courier company called back: 50% refund <agreed>",
      },
    });
    await app.t.db.prisma.conversationNote.create({
      data: { conversationId: conversation.id, operatorId: 0, operatorName: "dana", text: "unrelated remark" },
    });
    type Body = { results: Result[]; notes: { noteId: number; conversationId: number; snippet: string; operatorName: string }[] };
    const found = async (q: string, filters = "") => (await search(q, auth, filters)).body as unknown as Body;

    const both = await found("courier");
    expect(both.results).toHaveLength(1);
    expect(both.notes).toMatchObject([{ conversationId: conversation.id, operatorName: "dana" }]);
    expect(both.notes[0]!.snippet).toBe("<mark>Courier</mark> company called back: 50% refund &lt;agreed&gt;");
    // Every word must be in the note (a beginning of it is enough).
    expect((await found("couri refu")).notes).toHaveLength(1);
    expect((await found("courier unrelated")).notes).toHaveLength(0);
    // Filters hold for notes too: operators write them, a conversation and dates narrow them.
    expect((await found("courier", "&sender=user")).notes).toHaveLength(0);
    expect((await found("courier", "&sender=operator,user")).notes).toHaveLength(1);
    expect((await found("courier", `&conversationId=${conversation.id + 1}`)).notes).toHaveLength(0);
    expect((await found("courier", `&to=${encodeURIComponent(new Date(Date.now() - 3_600_000).toISOString())}`)).notes).toHaveLength(0);
  });

  it("a word too long to search for is a clear 400", async () => {
    const response = await search(`荷物 ${"あ".repeat(500)}`);
    expect(response.status).toBe(400);
    expect(JSON.stringify(response.body)).toContain("at most 64 characters");
  });

  it("hostile text and terms (2,000 messages of 4,096 characters, twenty searches at once) answer, and health meanwhile", async () => {
    await app.t.post(update({ chat: group, text: "東京の会議" }));
    const { conversationId } = await app.t.db.prisma.message.findFirstOrThrow();
    // Every trigram and pair of the terms below is in every message: the index narrows nothing.
    const text = "あいう".repeat(683) + "あいえ".repeat(682);
    const rows =
      app.t.db.dialect === "sqlite"
        ? `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000) SELECT ?, 'inbound', 'user', ?, ?, ? FROM n`
        : "SELECT CAST(? AS int), 'inbound', 'user', CAST(? AS text), CAST(? AS timestamp), CAST(? AS timestamp) FROM generate_series(1, 2000)";
    const now = new Date();
    await app.t.db.write([
      `INSERT INTO "Message" ("conversationId", "direction", "senderKind", "text", "sentAt", "createdAt") ${rows}`,
      conversationId,
      text,
      now,
      now,
    ]);
    expect(await app.t.db.prisma.message.count()).toBe(2001);
    const absent = ["あいえあいう", `${"あいう".repeat(21)}え`, "えあいう", "う".repeat(64)];
    const present = [`${"あいう".repeat(21)}あ`, "あい", "いえ"];
    const terms = Array.from({ length: 20 }, (_, i) => (i % 2 ? absent[i % absent.length]! : present[i % present.length]!));
    const searches = terms.map((q) => search(q));
    const health = await healthRoute();
    expect(health.status).toBe(200);
    for (const [i, { status, body }] of (await Promise.all(searches)).entries()) {
      expect(status).toBe(200);
      // Within the time limit, or marked as stopped there.
      if (!body.incomplete) expect(body.results, terms[i]).toHaveLength(absent.includes(terms[i]!) ? 0 : 20);
    }
    expect(await texts("東京")).toEqual(["東京の会議"]);
    expect((await search("会議")).body.results).toHaveLength(1);
  }, 120_000);

  it("a search that reaches its deadline stops there and says so; it never reads on the request thread's connection", async () => {
    await app.t.post(update({ chat: group, text: "東京の会議 about the parcel" }));
    for (const q of ["parcel", "東京", "東京の会議", "東京 parcel"]) {
      const stopped = await searchMessages(app.t.db, searchTerms(q), {}, 20, Date.now() - 1);
      expect(stopped, q).toEqual({ rows: [], complete: false });
      expect((await searchMessages(app.t.db, searchTerms(q), {}, 20, Date.now() + 10_000)).rows, q).toHaveLength(1);
    }
    if (app.t.db.sqliteConnection) {
      // While the request thread's connection is busy (a long write), a search still answers.
      let found = 0;
      await app.t.db.sqliteConnection.exclusive(async () => {
        found = (await searchMessages(app.t.db, searchTerms("東京 parcel"), {}, 20, Date.now() + 10_000)).rows.length;
      });
      expect(found).toBe(1);
    }
  });
});
