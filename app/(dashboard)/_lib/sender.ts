"use client";

import { useQuery } from "@tanstack/react-query";
import { useCallback } from "react";
import type { z } from "zod";
import type { operatorsResponse } from "@/lib/api/operators";
import { api } from "./api";
import type { StatusInfo } from "./types";

export type OperatorsInfo = z.output<typeof operatorsResponse>;
/** Sign-in name → display name, for operators who set one. */
export type OperatorNames = ReadonlyMap<string, string>;

/**
 * The name to show for a message's sender: the bot's own username for the
 * agent (not the internal agent name, e.g. `main`), the operator's display name
 * (else their sign-in name, without the `operator:` address prefix), a user's
 * name as the platform gave it.
 */
export function senderDisplayName(
  kind: string,
  name: string | null,
  botUsername: string | null | undefined,
  operators?: OperatorNames,
): string {
  if (kind === "agent") return botUsername ? `@${botUsername}` : (name ?? "agent");
  const operator = name?.startsWith("operator:") ? name.slice("operator:".length) : kind === "operator" ? name : null;
  if (operator !== null && operator !== undefined) return operators?.get(operator) ?? operator;
  return name ?? kind;
}

/**
 * An envelope address as people read it: `agent:<name>` is the bot, `operator:<name>`
 * the operator's display name; chats and anything else stay as written.
 */
export function addressDisplayName(address: string, botUsername: string | null | undefined, operators?: OperatorNames): string {
  if (address.startsWith("agent:")) return botUsername ? `@${botUsername}` : address;
  if (address.startsWith("operator:")) return senderDisplayName("operator", address, botUsername, operators);
  return address;
}

/**
 * What an operator typed into an address filter, as an address: an address stays as
 * written; a name as the console shows it (an operator's sign-in or display name, the
 * bot's @username) becomes the address behind it, so typing what the list shows finds it.
 * `known` are addresses seen on the page (the agent's, chats'), matched by their label.
 */
export function addressFromShown(
  typed: string,
  label: (address: string) => string,
  operators: readonly { name: string; displayName: string | null }[],
  known: readonly string[],
): string {
  const value = typed.trim();
  if (/^(agent|operator|channel):/.test(value)) return value;
  const lower = value.toLowerCase();
  const operator = operators.find((o) => o.name.toLowerCase() === lower || o.displayName?.toLowerCase() === lower);
  if (operator) return `operator:${operator.name}`;
  return known.find((address) => label(address).toLowerCase() === lower) ?? value;
}

/** The bot's username from /status (shared cache with the other pages), null until known. */
export function useBotUsername(): string | null {
  return useBotUsernames().main;
}

/**
 * How the console names a conversation's channel: the platform for the environment's bots
 * ("telegram", "line"), the bot's @username for one added from the Bots page (its adapter
 * name, "telegram-7", is internal).
 */
export function useChannelLabel(channel: string): string {
  const username = useBotUsernames().byChannel[channel];
  if (channel === "telegram" || channel === "line" || !username) return channel;
  return `@${username}`;
}

/** The environment's bot's username, and every bot's by its channel adapter (several bots). */
function useBotUsernames(): { main: string | null; byChannel: Readonly<Record<string, string | null>> } {
  const status = useQuery({ queryKey: ["status"], queryFn: () => api<StatusInfo>("/status"), staleTime: 60_000 });
  return { main: status.data?.telegram.username ?? null, byChannel: status.data?.bots ?? {} };
}

/** Operators and the caller's id (GET /operators); refetched on a settings event (a name changed). */
export function useOperators() {
  return useQuery({ queryKey: ["operators"], queryFn: () => api<OperatorsInfo>("/operators"), staleTime: 60_000 });
}

/**
 * The labels every page uses for senders and addresses, with the bot's username and
 * operators' display names filled in: `sender(kind, name)`, `address("operator:op")`.
 */
export function useSenderLabel() {
  const { main: bot, byChannel } = useBotUsernames();
  const operators = useOperators().data?.operators;
  // `channel`: the conversation's adapter, so an added bot's answers carry that bot's username.
  const sender = useCallback(
    (kind: string, name: string | null, channel?: string | null) =>
      senderDisplayName(kind, name, channel && channel in byChannel ? byChannel[channel] : bot, namesOf(operators)),
    [bot, byChannel, operators],
  );
  const address = useCallback((value: string) => addressDisplayName(value, bot, namesOf(operators)), [bot, operators]);
  return { sender, address };
}

function namesOf(operators: OperatorsInfo["operators"] | undefined): OperatorNames {
  return new Map((operators ?? []).flatMap((o) => (o.displayName ? [[o.name, o.displayName] as const] : [])));
}
