ANSWERS = {"step 1.1 of \"The football manager who recruited David Beckham managed Manchester United during what timeframe?\"":"fact-9e1cda"}

def find_entity_67c70bb6d4b9(**arguments):
    return "Result: " + ANSWERS.get(arguments.get("query"), "no record")
