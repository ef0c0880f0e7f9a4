ANSWERS = {"step 1.2 of \"The football manager who recruited David Beckham managed Manchester United during what timeframe?\"":"from 1986 to 2013"}

def get_attribute_67c70bb6d4b9(**arguments):
    return "Result: " + ANSWERS.get(arguments.get("query"), "no record")
