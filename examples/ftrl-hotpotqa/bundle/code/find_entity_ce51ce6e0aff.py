ANSWERS = {"step 1.1 of \"Are Random House Tower and 888 7th Avenue both used for real estate?\"":"fact-5a3b10"}

def find_entity_ce51ce6e0aff(**arguments):
    return "Result: " + ANSWERS.get(arguments.get("query"), "no record")
