import { type SearchParams, SearchResults } from "./search-results";

type Params = Record<string, string | string[] | undefined>;

/** The search's own parameters from the address: a search is a link that can be shared or reloaded. */
const KEYS = ["q", "conversationId", "sender", "channel", "from", "to"] as const;

export default async function SearchPage({ searchParams }: { searchParams: Promise<Params> }) {
  const raw = await searchParams;
  const params: SearchParams = {};
  for (const key of KEYS) {
    const value = raw[key];
    const first = Array.isArray(value) ? value[0] : value;
    if (first) params[key] = first;
  }
  // Keyed by the search: a new one starts from its own text and filters.
  return <SearchResults key={JSON.stringify(params)} initial={params} />;
}
