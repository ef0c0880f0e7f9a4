// FTRL's published formats, written as FTRL stores them, for the bundle tests: an environment directory
// (tools.json in OpenAI's form, codes.json with `def name(data, ...)`, three database tables, written
// as Python writes them: digit-string keys out of ascending order, `N.0` floats) with
// τ-bench-style tasks (instruction + actions, arguments as JSON text), and a per-sample file (tools,
// codes and unsolved_set as JSON text).
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const fn = (name: string, description: string, properties: Record<string, unknown>, required: string[]) => ({
  type: "function",
  function: { name, description, parameters: { type: "object", properties, required } },
});

export const STORE_TOOLS = [
  fn("get_user", "The details of a user.", { user_id: { type: "string" } }, ["user_id"]),
  fn("list_products", "Every product with its price and stock.", {}, []),
  fn(
    "place_order",
    "Orders quantity of a product for a user, paid from the user's balance.",
    { user_id: { type: "string" }, product_id: { type: "string" }, quantity: { type: "integer" } },
    ["user_id", "product_id", "quantity"],
  ),
  fn("cancel_order", "Cancels an order and refunds it.", { order_id: { type: "string" } }, ["order_id"]),
  fn(
    "add_funds",
    "Adds an amount to a user's balance.",
    { user_id: { type: "string" }, amount: { type: "number" } },
    ["user_id", "amount"],
  ),
];

const header = "from typing import Any, Dict\n\n\n";
export const STORE_CODES: Record<string, string> = {
  get_user: `${header}def get_user(data: Dict[str, Any], user_id: str) -> str:
    import json
    users = data["users"]
    if user_id not in users:
        return "Error: user not found"
    return json.dumps(users[user_id])`,
  list_products: `${header}def list_products(data: Dict[str, Any]) -> str:
    import json
    return json.dumps(data["products"])`,
  place_order: `${header}def place_order(data: Dict[str, Any], user_id: str, product_id: str, quantity: int) -> str:
    users, products, orders = data["users"], data["products"], data["orders"]
    if user_id not in users:
        return "Error: user not found"
    if product_id not in products:
        return "Error: product not found"
    product = products[product_id]
    if product["stock"] < quantity:
        return "Error: not enough stock"
    total = product["price"] * quantity
    if users[user_id]["balance"] < total:
        return "Error: not enough balance"
    order_id = "O%03d" % (len(orders) + 1)
    product["stock"] -= quantity
    users[user_id]["balance"] -= total
    users[user_id]["orders"].append(order_id)
    orders[order_id] = {"user_id": user_id, "product_id": product_id, "quantity": quantity, "total": total, "status": "placed"}
    return {"order_id": order_id, "total": total}`,
  cancel_order: `${header}def cancel_order(data: Dict[str, Any], order_id: str) -> str:
    orders = data["orders"]
    if order_id not in orders:
        return "Error: order not found"
    order = orders[order_id]
    if order["status"] == "cancelled":
        return "Error: already cancelled"
    order["status"] = "cancelled"
    data["products"][order["product_id"]]["stock"] += order["quantity"]
    data["users"][order["user_id"]]["balance"] += order["total"]
    return "cancelled " + order_id`,
  add_funds: `${header}def add_funds(data: Dict[str, Any], user_id: str, amount: float) -> str:
    data["users"][user_id]["balance"] += amount
    return data["users"][user_id]["balance"]`,
};

/**
 * The database files' text, as FTRL stores them (Python's json.dump): product ids and variant ids are
 * digit strings in FTRL's order, which is not ascending (a JS object would reorder them: `9690244451`
 * behind `1151293680`), and prices and balances are floats written `N.0` (a JS number round trip
 * writes `198`). FTRL's tools read the database as `json.load` gives it: this order, these floats.
 */
export const STORE_DATABASE_FILES: Record<string, string> = {
  users: `{
  "ann_1": {"name": "Ann", "balance": 500.0, "orders": []},
  "bob_2": {"name": "Bob", "balance": 20.0, "orders": ["O001"]}
}
`,
  products: `{
  "P1": {"name": "kettle", "price": 30.0, "stock": 5, "variants": {"9690244451": {"color": "red", "price": 30.0}, "1151293680": {"color": "blue", "price": 32.5}}},
  "P2": {"name": "mug", "price": 8.0, "stock": 2, "variants": {"7445290617": {"size": "large"}, "2040101010": {"size": "small"}}},
  "P3": {"name": "teapot", "price": 198.0, "stock": 1, "variants": {}}
}
`,
  orders: `{
  "O001": {"user_id": "bob_2", "product_id": "P2", "quantity": 1, "total": 8.0, "status": "placed"}
}
`,
};

/** The database as a JS value (key order and float spelling lost: for value comparisons only). */
export const STORE_TABLES = {
  users: JSON.parse(STORE_DATABASE_FILES.users as string) as Record<
    string,
    { name: string; balance: number; orders: string[] }
  >,
  products: JSON.parse(STORE_DATABASE_FILES.products as string) as Record<string, Record<string, unknown>>,
  orders: JSON.parse(STORE_DATABASE_FILES.orders as string) as Record<string, Record<string, unknown>>,
};

const call = (id: string, name: string, args: Record<string, unknown>) => ({
  id,
  type: "function",
  function: { name, arguments: JSON.stringify(args) },
});

/** τ-bench-style tasks: the instruction, the ground-truth calls, the outputs; one row of another environment. */
export const STORE_TASKS = [
  {
    instruction: "You are Ann (ann_1). Buy two kettles and a teapot; then cancel the teapot.",
    actions: [
      call("0", "place_order", { user_id: "ann_1", product_id: "P1", quantity: 2 }),
      call("1", "place_order", { user_id: "ann_1", product_id: "P3", quantity: 1 }),
      call("2", "cancel_order", { order_id: "O003" }),
    ],
    outputs: ["60"],
    data_source: "store",
  },
  {
    instruction: "You are Bob (bob_2). Cancel your mug order, add 50 to your balance and buy a kettle.",
    actions: [
      call("0", "cancel_order", { order_id: "O001" }),
      call("1", "add_funds", { user_id: "bob_2", amount: 50 }),
      call("2", "place_order", { user_id: "bob_2", product_id: "P1", quantity: 1 }),
    ],
    outputs: [],
    data_source: "store",
  },
  {
    instruction:
      "You are Ann (ann_1). Look at the products and your account, then buy the big mug and the teapot.",
    actions: [
      call("0", "list_products", {}),
      call("1", "get_user", { user_id: "ann_1" }),
      call("2", "place_order", { user_id: "ann_1", product_id: "P2", quantity: 1 }),
      call("3", "place_order", { user_id: "ann_1", product_id: "P3", quantity: 1 }),
      call("4", "get_user", { user_id: "ann_1" }),
    ],
    outputs: [],
    data_source: "store",
  },
  {
    instruction: "A task of another environment.",
    actions: [call("0", "book_flight", { flight: "HAT001" })],
    outputs: [],
    data_source: "airline",
  },
];

/** Writes the environment directory `dir` (tools.json, codes.json, users/products/orders.json) and `tasksFile`. */
export function writeFtrlEnvironment(dir: string, tasksFile: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "tools.json"), JSON.stringify(STORE_TOOLS));
  writeFileSync(join(dir, "codes.json"), JSON.stringify(STORE_CODES));
  for (const [table, text] of Object.entries(STORE_DATABASE_FILES))
    writeFileSync(join(dir, `${table}.json`), text);
  writeFileSync(join(dir, "wiki.md"), "# Store policy\nBe kind.\n");
  writeFileSync(tasksFile, STORE_TASKS.map((t) => `${JSON.stringify(t)}\n`).join(""));
}

/** Per-sample rows as FTRL stores them: tools, codes and unsolved_set as JSON text. */
export function ftrlSampleRows(): Record<string, unknown>[] {
  const weather = fn("get_weather", "The weather of a city.", { city: { type: "string" } }, ["city"]);
  const add = fn("add", "Adds two numbers.", { a: { type: "number" }, b: { type: "number" } }, ["a", "b"]);
  const convert = fn("to_fahrenheit", "Celsius to Fahrenheit.", { celsius: { type: "number" } }, ["celsius"]);
  const weatherCode = `def get_weather(city):
    table = {"Paris": {"celsius": 21, "sky": "clear"}, "Oslo": {"celsius": 4, "sky": "snow"}}
    if city not in table:
        return "Error: unknown city"
    return table[city]`;
  return [
    {
      messages: [{ role: "user", content: "How warm is it in Paris, in Fahrenheit?" }],
      tools: JSON.stringify([weather, convert, add]),
      codes: JSON.stringify({
        get_weather: weatherCode,
        to_fahrenheit: "def to_fahrenheit(celsius):\n    return round(celsius * 9 / 5 + 32, 1)",
        add: "def add(a, b):\n    return a + b",
      }),
      unsolved_set: JSON.stringify({ get_weather: ["21"], to_fahrenheit: ["69.8"] }),
      answer: "69.8",
      solve_rate: 0.5,
      data_source: "ftrl_self",
    },
    {
      // `add` again, but another tool under the same name: the bundle keeps both, renamed
      messages: [
        { role: "system", content: "You are a calculator." },
        { role: "user", content: "What is 2 + 3?" },
      ],
      tools: JSON.stringify([add]),
      codes: JSON.stringify({ add: "def add(a, b):\n    return str(a + b) + ' (sum)'" }),
      unsolved_set: JSON.stringify({ add: ["5"] }),
      answer: "5",
      data_source: "ftrl_self",
    },
  ];
}
