/**
 * The vocabulary of the benchmark: configurations, ledgers, answer keys and scores.
 * Money inside the program is integer cents (`Cents`); it becomes a two-decimal string only
 * when written out (see `money.ts`).
 */

/** An amount of money in whole cents. */
export type Cents = number;

/** The four values that identify a task's ledger, together with its index. */
export interface TaskConfig {
  num_transactions: number;
  fault_rate: number;
  seed: number;
}

export const FAULT_CODES = [
  'gst_on_gst_free',
  'gst_miscalculated',
  'duplicate_invoice',
  'outside_period',
  'missing_abn_over_threshold',
] as const;
export type FaultCode = (typeof FAULT_CODES)[number];

export const BAS_LABELS = ['G1', '1A', '1B', 'net'] as const;
export type BasLabel = (typeof BAS_LABELS)[number];

export const GST_FREE_CATEGORIES = ['basic_food', 'medical', 'education', 'export'] as const;
export const INPUT_TAXED_CATEGORIES = ['financial_supply', 'residential_rent'] as const;
/** Taxable categories (generator 3): short, and chosen so that every trade's sales fit one. */
export const TAXABLE_CATEGORIES = ['goods', 'equipment', 'services', 'hot_food', 'construction', 'utilities'] as const;
export type Category =
  (typeof GST_FREE_CATEGORIES)[number] | (typeof INPUT_TAXED_CATEGORIES)[number] | (typeof TAXABLE_CATEGORIES)[number];
export const CATEGORIES: readonly Category[] = [
  ...TAXABLE_CATEGORIES,
  ...GST_FREE_CATEGORIES,
  ...INPUT_TAXED_CATEGORIES,
];

type RowType = 'sale' | 'purchase';

/** One ledger row with money in cents, as the program works with it. */
export interface Row {
  id: string;
  /** ISO date, YYYY-MM-DD. */
  date: string;
  type: RowType;
  counterparty: string;
  description: string;
  category: Category;
  /** GST-inclusive price. */
  amount: Cents;
  /** GST recorded on the document. */
  gst: Cents;
  invoice: string;
  /** Supplier ABN on purchases; "" where the document shows none, and on every sale. */
  abn: string;
}

export interface Period {
  start: string;
  end: string;
}

export interface Ledger {
  /** `trade` is what the business does (see vocabulary.ts); "" in task files made before generator 3. */
  business: { name: string; abn: string; trade: string };
  period: Period;
  rows: Row[];
}

/** Row id -> sorted, distinct fault codes. Rows without faults are absent. */
export type FaultMap = Record<string, FaultCode[]>;

export interface Bas {
  G1: Cents;
  '1A': Cents;
  '1B': Cents;
  net: Cents;
}

export interface AnswerKey {
  bas: Bas;
  faults: FaultMap;
}

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** A generated task: its identity, its ledger, what was injected, the key and the prompt. */
export interface Task {
  index: number;
  /** The generator and prompt versions the task was made with; null when a task file does not say. */
  generator: number | null;
  prompt_version: number | null;
  config: TaskConfig;
  ledger: Ledger;
  injected: FaultMap;
  key: AnswerKey;
  prompt: ChatMessage[];
}

/**
 * Why a label (or the whole BAS) is wrong: `audit` when the reply stated what its own faults
 * imply and those are wrong, `arithmetic` when its faults imply the key's figure and it stated
 * another, `both` when it stated neither.
 */
export type WrongBasCause = 'audit' | 'arithmetic' | 'both';

/** The consistency of one parsed reply; an unparseable reply has none. */
export interface Consistency {
  /** 1 when all four stated labels equal what the reply's own faults imply. */
  bas_consistent: 0 | 1;
  /** Why the BAS is wrong; null when all four labels are right. */
  bas_error: WrongBasCause | null;
  /** Per label: why it is wrong, null when it is right. */
  labels: Record<BasLabel, WrongBasCause | null>;
}

/** Per-code pair counts for one reply: true positives, false positives, false negatives. */
export interface PairCounts {
  tp: number;
  fp: number;
  fn: number;
}

export interface Scores {
  reward: number;
  rewards: { bas_correct: number; fault_audit: number };
  metrics: {
    bas_label_accuracy: number;
    fault_precision: number;
    fault_recall: number;
    num_flagged: number;
    parsed: number;
  };
  /** What the breakdowns in reports are built from, so they need not re-derive the task. */
  detail: {
    /** Whether each label matched the key (all false when unparseable). */
    labels: Record<BasLabel, boolean>;
    /** Pair counts per known fault code. */
    codes: Record<FaultCode, PairCounts>;
    /** Claimed pairs whose code is not one of the five. */
    unknown_codes: number;
    /** Why the reply was unparseable; absent when it parsed. */
    unparseable?: string;
    /**
     * The stated BAS against the one the reply's own faults imply (implied.ts). Absent when
     * the reply was unparseable, when it was graded without its ledger, and in records
     * written before bas 0.4.1.
     */
    consistency?: Consistency;
  };
}
