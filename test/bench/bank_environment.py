"""The stateful learning benchmark's environment: a small bank, served by `rlf env python` the way a user
serves any Python class (one instance per episode, forked per GRPO group by the gateway):

    rlf env python --module test/bench/bank_environment.py --class Bank --name bank --stdio

A task's episode config is the constructor's arguments: the people the bank knows (name -> account
number) and the customer's balance. The model sees two tools, `bank__lookup` (a read: a person's account
number) and `bank__transfer` (a write that needs that number); the episode state (the instance's public
attributes) is what the reward checks at the end: `transfers` and `balance`.
"""


class Bank:
    def __init__(self, directory: dict, balance: int):
        self.directory = dict(directory)
        self.balance = balance
        self.transfers = []

    def lookup(self, name: str) -> dict:
        """The account number of a person.

        Args:
            name: The person's name.
        """
        wanted = name.strip().lower()
        for person, account in self.directory.items():
            if person.lower() == wanted:
                return {"account": account}
        raise ValueError(f"nobody named {name!r}")

    def transfer(self, account: str, amount: int) -> dict:
        """Sends money from the customer's balance to an account; answers the new balance.

        Args:
            account: The account number to send to.
            amount: How much to send.
        """
        account = str(account).strip()
        if account not in self.directory.values():
            raise ValueError(f"no account {account}")
        if not 0 < amount <= self.balance:
            raise ValueError(f"cannot send {amount}")
        self.balance -= amount
        self.transfers.append({"to": account, "amount": amount})
        return {"balance": self.balance}
