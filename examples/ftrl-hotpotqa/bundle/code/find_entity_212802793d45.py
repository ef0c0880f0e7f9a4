ANSWERS = {"step 1.1 of \"What screenwriter with credits for \"Evolution\" co-wrote a film starring Nicolas Cage and Téa Leoni?\"":"fact-40499b"}

def find_entity_212802793d45(**arguments):
    return "Result: " + ANSWERS.get(arguments.get("query"), "no record")
