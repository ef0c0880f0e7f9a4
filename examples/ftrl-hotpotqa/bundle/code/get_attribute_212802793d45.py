ANSWERS = {"step 1.2 of \"What screenwriter with credits for \"Evolution\" co-wrote a film starring Nicolas Cage and Téa Leoni?\"":"David Weissman"}

def get_attribute_212802793d45(**arguments):
    return "Result: " + ANSWERS.get(arguments.get("query"), "no record")
